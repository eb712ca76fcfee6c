// genstudy analyze: partial correlations between OOD test sets across checkpoints, per run, and
// their agreement across runs.
import { writeFile, rename } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { readScores } from '../analyze/read-scores.ts';
import { availableMetrics, buildRunSeries } from '../analyze/run-series.ts';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../analyze/analysis.ts';
import { formatAgreementCsv, formatJson, formatPairsCsv, formatTable, type OutputFormat } from '../analyze/format.ts';
import type { ScoreRow } from '../analyze/score-row.ts';

interface AnalyzeFlags {
  control: string;
  metric?: string;
  method: AnalyzeOptions['method'];
  residualiser: AnalyzeOptions['residualiser'];
  correction: AnalyzeOptions['correction'];
  alpha: string;
  bootstrap: string;
  blockLength?: string;
  permutations: string;
  seed: string;
  differences?: boolean;
  testSets?: string;
  promptVariant: string;
  format: OutputFormat;
  out?: string;
}

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description('Do generalisation results generalise? Partial correlations between OOD test sets across checkpoints, controlling for the in-domain score')
    .argument('<input>', 'a genstudy results store (.sqlite), a long-format CSV/TSV/JSONL file (run, step, test_set, metric, value), or a folder of lm-evaluation-harness results_*.json')
    .requiredOption('--control <test-set>', 'the in-domain test set whose score is regressed out')
    .option('--metric <name>', 'the metric to correlate (default: the only one, or accuracy / acc when there are several)')
    .addOption(new Option('--method <method>', 'correlation').choices(['pearson', 'spearman']).default(DEFAULT_OPTIONS.method))
    .addOption(new Option('--residualiser <kind>', 'how the control is regressed out: a straight line, or a penalised spline with GCV (a GAM)').choices(['linear', 'spline']).default(DEFAULT_OPTIONS.residualiser))
    .addOption(new Option('--correction <method>', 'multiple-testing correction over the pairs of each run').choices(['holm', 'bonferroni', 'bh', 'by', 'none']).default(DEFAULT_OPTIONS.correction))
    .option('--alpha <level>', 'significance level for the agreement table', String(DEFAULT_OPTIONS.alpha))
    .option('--bootstrap <resamples>', 'moving-block bootstrap confidence intervals with this many resamples (0: none)', '0')
    .option('--block-length <steps>', 'block length for the bootstrap (default: ceil(n^(1/3)))')
    .option('--permutations <count>', 'order-respecting (circular shift) permutation test with this many permutations (0: none)', '0')
    .option('--seed <seed>', 'seed for the bootstrap and permutations', String(DEFAULT_OPTIONS.seed))
    .option('--differences', 'correlate first differences between checkpoints instead of levels')
    .option('--test-sets <list>', 'comma-separated OOD test sets to include (default: all but the control)')
    .option('--prompt-variant <name>', 'prompt variant to read from a store', '')
    .addOption(new Option('--format <format>', 'output').choices(['table', 'json', 'csv']).default('table'))
    .option('--out <file>', 'write the output here instead of standard output (csv also writes <file>.agreement.csv)')
    .action(async (input: string, flags: AnalyzeFlags) => {
      const rows = await readScores(input, { promptVariant: flags.promptVariant });
      const metric = chooseMetric(rows, flags.metric, input);
      const series = buildRunSeries(rows, metric);
      for (const s of series) {
        if (s.incompleteSteps.length) {
          const first = s.incompleteSteps[0];
          process.stderr.write(`genstudy: run "${s.run}": ${s.incompleteSteps.length} step(s) left out because some test set has no score there (e.g. step ${first.step}: ${first.missing.join(', ')})\n`);
        }
      }
      const opts: AnalyzeOptions = {
        control: flags.control,
        method: flags.method,
        residualiser: flags.residualiser,
        correction: flags.correction,
        alpha: number(flags.alpha, '--alpha', (x) => x > 0 && x < 1),
        differences: flags.differences ?? false,
        bootstrap: number(flags.bootstrap, '--bootstrap', (x) => Number.isInteger(x) && x >= 0),
        blockLength: flags.blockLength === undefined ? undefined : number(flags.blockLength, '--block-length', (x) => Number.isInteger(x) && x >= 1),
        permutations: number(flags.permutations, '--permutations', (x) => Number.isInteger(x) && x >= 0),
        seed: number(flags.seed, '--seed', Number.isInteger),
        testSets: flags.testSets?.split(',').map((s) => s.trim()).filter(Boolean),
      };
      const result = analyzeRuns(series, opts);
      const text = flags.format === 'json' ? formatJson(result) : flags.format === 'csv' ? formatPairsCsv(result) : formatTable(result, opts);
      if (flags.out) {
        await writeAtomically(flags.out, text);
        if (flags.format === 'csv') await writeAtomically(`${flags.out.replace(/\.csv$/, '')}.agreement.csv`, formatAgreementCsv(result));
        process.stderr.write(`genstudy: wrote ${flags.out}\n`);
      } else {
        process.stdout.write(text);
      }
    });
}

function chooseMetric(rows: readonly ScoreRow[], wanted: string | undefined, input: string): string {
  const metrics = availableMetrics(rows);
  if (metrics.length === 0) throw new UserError(`${input}: no scores to analyse (a store keeps prompt variants apart: choose one with --prompt-variant)`);
  if (wanted !== undefined) {
    if (!metrics.includes(wanted)) throw new UserError(`${input}: no scores for metric "${wanted}" (it has: ${metrics.join(', ')})`);
    return wanted;
  }
  if (metrics.length === 1) return metrics[0];
  for (const m of ['accuracy', 'acc']) if (metrics.includes(m)) return m;
  throw new UserError(`${input}: several metrics (${metrics.join(', ')}); choose one with --metric`);
}

function number(text: string, flag: string, ok: (x: number) => boolean): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || !ok(x)) throw new UserError(`${flag}: invalid value "${text}"`);
  return x;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}
