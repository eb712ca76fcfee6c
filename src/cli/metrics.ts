// genstudy metrics: score existing predictions without a model (for now: ROUGE with rouge-score's semantics).
import { Command } from 'commander';
import { addFormatOption } from './shared-options.ts';
import { joinById, readIdTextJsonl } from '../metrics/idTextJsonl.ts';
import { formatRougeTable, scoreRougePairs } from '../metrics/rougeReport.ts';

interface RougeFlags {
  predictions: string;
  references: string;
  stemmer?: boolean;
  format: 'json' | 'table';
}

export function registerMetrics(program: Command): void {
  const metrics = program.command('metrics').description('Score predictions against references without a model');
  const rouge = metrics
    .command('rouge')
    .description('ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum (rouge-score semantics) per pair and on average; Lsum splits sentences on newlines')
    .requiredOption('--predictions <file>', 'JSON lines {"id": ..., "text": ...}: the generated texts')
    .requiredOption('--references <file>', 'JSON lines {"id": ..., "text": ...}: the reference texts, joined to predictions by id')
    .option('--stemmer', "Porter-stem tokens longer than 3 characters (NLTK's stemmer, as rouge-score's use_stemmer)");
  addFormatOption(rouge)
    .action(async (flags: RougeFlags) => {
      const [predictions, references] = await Promise.all([
        readIdTextJsonl(flags.predictions),
        readIdTextJsonl(flags.references),
      ]);
      const pairs = joinById(predictions, references, flags.predictions, flags.references);
      const report = scoreRougePairs(pairs, { stemmer: flags.stemmer === true });
      process.stdout.write(flags.format === 'json' ? `${JSON.stringify(report)}\n` : formatRougeTable(report));
    });
}
