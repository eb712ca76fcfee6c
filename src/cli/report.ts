// genstudy report: a results store (or any input analyze takes) -> one self-contained HTML page plus CSV and JSON of every table.
import { Command } from 'commander';
import { UserError } from '../errors.ts';
import { checkNamedTestSets } from '../analyze/input-checks.ts';
import { addScoreInputOptions, readAndDescribe, runNamingFlags, sampleSizeFlag, SCORE_INPUT_HELP, type ScoreInputFlags,
} from './score-input-flags.ts';
import { addAnalysisOptions, analysisOptionsFromFlags, type AnalysisFlags } from './analysis-flags.ts';
import { terminalSafe } from '../terminal-safe.ts';
import { analysisProgress } from './analysis-progress.ts';
import { wholeNumber } from './flag-values.ts';

interface ReportFlags extends AnalysisFlags, ScoreInputFlags {
  out: string;
  control?: string;
  metric?: string;
  title?: string;
  study?: string;
  pair?: string[];
  figures?: string;
  runFigures?: string;
}

export function registerReport(program: Command): void {
  const command = program
    .command('report')
    .description('Write the study report: one self-contained HTML page (opens offline) with training curves, partial-correlation ' +
      'heatmaps, sign agreement across runs, study B matrices and provenance, plus CSV and JSON of every table')
    .argument('<input>', SCORE_INPUT_HELP)
    .requiredOption('--out <dir>', 'folder to write report.html and the tables into')
    .option('--control <test-set>',
      'the in-domain test set regressed out (default: the runs\' "control_test_set" attribute; without either, no study-A analysis)')
    .option('--metric <name>', 'the metric to analyse and draw (default: per test set its spec.metric, its only metric, or accuracy / acc)')
    .option('--title <text>', 'the page title')
    .option('--study <file>', 'the study file to embed in the provenance section')
    .option('--pair <set...>',
      'the two OOD test sets whose residual scatter is drawn per run (default: a pair whose sign differs between runs, else the strongest)')
    .option('--run-figures <n|all>', 'whose figures the page draws: all runs, or the first n (default: the first runs, in run order, ' +
      'until their figures take 8 MB of the page; the page lists the runs it does not draw and says where their numbers are)')
    .option('--figures <dir>', 'also write what goes into a paper into this folder (replaced whole, beside --out, not inside it): every ' +
      'figure as SVG and PDF, and the verdict, meta-analysis and study B tables as LaTeX (booktabs) and Markdown');
  addScoreInputOptions(command);
  addAnalysisOptions(command)
    .action(async (store: string, flags: ReportFlags) => {
      const analysis = analysisOptionsFromFlags(flags);
      if (flags.pair && flags.pair.length !== 2) throw new UserError(`--pair ${flags.pair.join(' ')}: expected two test sets, e.g. --pair hans rte`);
      const runFigures = flags.runFigures === undefined || flags.runFigures === 'all' ? flags.runFigures
        : /^\s*\d+\s*$/.test(flags.runFigures) ? wholeNumber('--run-figures', flags.runFigures, { min: 0 }) : undefined;
      if (flags.runFigures !== undefined && runFigures === undefined) {
        throw new UserError(`--run-figures ${flags.runFigures}: expected all or a whole number of runs (0 or more)`);
      }
      // said once here; the report reads the input again itself
      const { scores, exampleResults } = await readAndDescribe(store, flags);
      if (flags.dryRun) return;
      // a store without scores for this prompt variant gets loadReportData's message, which lists the variants
      if (scores.length) checkNamedTestSets(scores, store, { control: flags.control, testSets: analysis.testSets });
      // Loaded here so that other commands do not pay for loading Vega.
      const { writeReport } = await import('../report/index.ts');
      const written = await writeReport(flags.out, {
        storePath: store,
        columns: flags.columns,
        runNames: await runNamingFlags(flags),
        sampleSize: sampleSizeFlag(flags),
        ...(flags.exampleResults !== undefined ? { exampleResults } : {}),
        control: flags.control,
        metric: flags.metric,
        promptVariant: flags.promptVariant,
        title: flags.title,
        studyFile: flags.study,
        pair: flags.pair as [string, string] | undefined,
        runFigures,
        analysis,
        progress: analysisProgress((line) => process.stderr.write(line)),
      }, { figures: flags.figures });
      process.stdout.write(`${terminalSafe(written.report.headline)}\n`);
      if (written.report.studyBHeadline) process.stdout.write(`Study B: ${terminalSafe(written.report.studyBHeadline)}\n`);
      process.stdout.write(`Report: ${written.html}\nTables: ` +
        `${Object.keys(written.report.tables).map((t) => `${t}.csv/.json`).join(', ')} in ${written.dir}\n`);
      if (written.figures) {
        for (const note of written.figures.notes) process.stderr.write(`genstudy: note: ${terminalSafe(note)}\n`);
        process.stdout.write(`Figures and tables for a paper: ${written.figures.files.length} files (SVG, PDF, LaTeX, Markdown; ` +
          `README.md says what each is) in ${written.figures.dir}\n`);
      }
    });
}
