// genstudy report: a results store -> one self-contained HTML page plus CSV and JSON of every table.
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { detectSource } from '../analyze/read-scores.ts';
import { DEFAULT_OPTIONS, type AnalyzeOptions } from '../analyze/analysis.ts';

interface ReportFlags {
  out: string;
  control?: string;
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
  title?: string;
  study?: string;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Write the study report: one self-contained HTML page (opens offline) with training curves, partial-correlation heatmaps, sign agreement across runs, study B matrices and provenance, plus CSV and JSON of every table')
    .argument('<store>', 'a genstudy results store (.sqlite)')
    .requiredOption('--out <dir>', 'folder to write report.html and the tables into')
    .option('--control <test-set>', 'the in-domain test set regressed out (default: the runs\' "control_test_set" attribute; without either, no study-A analysis)')
    .option('--metric <name>', 'the metric to analyse and draw (default: per test set its spec.metric, its only metric, or accuracy / acc)')
    .addOption(new Option('--method <method>', 'correlation').choices(['pearson', 'spearman']).default(DEFAULT_OPTIONS.method))
    .addOption(new Option('--residualiser <kind>', 'how the control is regressed out').choices(['linear', 'spline']).default(DEFAULT_OPTIONS.residualiser))
    .addOption(new Option('--correction <method>', 'multiple-testing correction over the pairs of each run').choices(['holm', 'bonferroni', 'bh', 'by', 'none']).default(DEFAULT_OPTIONS.correction))
    .option('--alpha <level>', 'significance level (after correction)', String(DEFAULT_OPTIONS.alpha))
    .option('--bootstrap <resamples>', 'moving-block bootstrap confidence intervals with this many resamples (0: none)', '0')
    .option('--block-length <steps>', 'block length for the bootstrap (default: ceil(n^(1/3)))')
    .option('--permutations <count>', 'order-respecting permutation test with this many permutations (0: none)', '0')
    .option('--seed <seed>', 'seed for the bootstrap and permutations', String(DEFAULT_OPTIONS.seed))
    .option('--differences', 'correlate first differences between checkpoints instead of levels')
    .option('--test-sets <list>', 'comma-separated OOD test sets to include (default: all but the control)')
    .option('--prompt-variant <name>', 'prompt variant to read', '')
    .option('--title <text>', 'the page title')
    .option('--study <file>', 'the study file to embed in the provenance section')
    .action(async (store: string, flags: ReportFlags) => {
      if ((await detectSource(store)) !== 'store') throw new UserError(`${store}: not a genstudy results store (expected an SQLite file as \`genstudy run\` writes it)`);
      // Loaded here so that other commands do not pay for loading Vega.
      const { writeReport } = await import('../report/index.ts');
      const written = await writeReport(flags.out, {
        storePath: store,
        control: flags.control,
        metric: flags.metric,
        promptVariant: flags.promptVariant,
        title: flags.title,
        studyFile: flags.study,
        analysis: {
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
        },
      });
      process.stdout.write(`${written.report.headline}\n`);
      if (written.report.studyBHeadline) process.stdout.write(`Study B: ${written.report.studyBHeadline}\n`);
      process.stdout.write(`Report: ${written.html}\nTables: ${Object.keys(written.report.tables).map((t) => `${t}.csv/.json`).join(', ')} in ${written.dir}\n`);
    });
}

function number(text: string, flag: string, ok: (x: number) => boolean): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || !ok(x)) throw new UserError(`${flag}: invalid value "${text}"`);
  return x;
}
