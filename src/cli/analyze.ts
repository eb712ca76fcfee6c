// genstudy analyze: partial correlations between OOD test sets across checkpoints, per run, and
// their agreement across runs.
import { writeFileAtomic, writeFilesTogether } from '../atomic-write.ts';
import { Command, Option } from 'commander';
import { addFormatOption } from './shared-options.ts';
import { outputFile } from './flag-values.ts';
import { UserError } from '../errors.ts';
import { checkNamedTestSets, lackingMetricNote } from '../analyze/input-checks.ts';
import { addScoreInputOptions, readAndDescribe, sampleSizeFlag, SCORE_INPUT_HELP, type ScoreInputFlags } from './score-input-flags.ts';
import { availableMetrics, buildRunSeries, type RunSeries } from '../analyze/run-series.ts';
import { analyzeRuns, type AnalyzeOptions } from '../analyze/analysis.ts';
import { attachErrorCovariance } from '../analyze/error-covariance.ts';
import { addAnalysisOptions, analysisOptionsFromFlags, type AnalysisFlags } from './analysis-flags.ts';
import { allCsvParts, formatAgreementCsv, formatTable, jsonParts, pairsCsvParts, type OutputFormat } from '../analyze/format.ts';
import { formatMetaCsv, formatModeratorCsv } from '../analyze/format-meta.ts';
import type { ScoreColumns } from '../analyze/score-columns.ts';
import { terminalSafe } from '../terminal-safe.ts';
import { analysisProgress } from './analysis-progress.ts';
import { knownNamesText } from '../closest-name.ts';

interface AnalyzeFlags extends AnalysisFlags, ScoreInputFlags {
  control: string;
  metric?: string;
  format: OutputFormat;
  out?: string;
  outFile?: string;
}

export function registerAnalyze(program: Command): void {
  const command = program
    .command('analyze')
    .description('Do generalisation results generalise? Partial correlations between OOD test sets across checkpoints, controlling for ' +
      'the in-domain score')
    .argument('<input>', SCORE_INPUT_HELP)
    .requiredOption('--control <test-set>', 'the in-domain test set whose score is regressed out')
    .option('--metric <name>', 'the metric to correlate (default: the only one, or accuracy / acc when there are several)')
    .option('--out-file <file>', 'write the output here instead of standard output; with --format csv, <stem>.csv holds the per-run ' +
      'pairs and beside it <stem>.meta.csv the verdicts, <stem>.agreement.csv the sign counts and, with --moderator, ' +
      '<stem>.moderator.csv (on standard output, csv is one table whose first column says which of these each row belongs to)')
    // --out names a folder in every other command; analyze's file took the same name until --out-file
    .addOption(new Option('--out <file>', 'the former name of --out-file').hideHelp());
  addFormatOption(command, ['table', 'json', 'csv']);
  addScoreInputOptions(command);
  addAnalysisOptions(command)
    .action(async (input: string, flags: AnalyzeFlags) => {
      if (flags.out !== undefined && flags.outFile !== undefined) throw new UserError('--out and --out-file name the same file: give --out-file');
      const outFile = flags.outFile ?? flags.out;
      outputFile(flags.outFile !== undefined ? '--out-file' : '--out', outFile);
      const opts: AnalyzeOptions = { ...analysisOptionsFromFlags(flags), control: flags.control };
      const series = await readSeries(input, flags, opts);
      if (series === undefined) return;
      const result = analyzeRuns(series, opts, analysisProgress((line) => process.stderr.write(line)));
      // JSON and CSV in parts (jsonParts; text-cells.ts csvParts): 300 runs x 1225 pairs is too long a text to build as one string
      const text: string | Iterable<string> = flags.format === 'json' ? jsonParts(result)
        : flags.format === 'csv' ? (outFile ? pairsCsvParts(result, opts.alpha) : allCsvParts(result, opts.alpha)) : formatTable(result, opts);
      if (flags.out !== undefined) {
        process.stderr.write("genstudy: note: analyze's --out is now --out-file (--out names a folder in the other commands); it still works\n");
      }
      if (outFile) {
        if (flags.format === 'csv') {
          const stem = outFile.replace(/\.csv$/, '');
          const files = [
            { file: outFile, data: text },
            { file: `${stem}.agreement.csv`, data: formatAgreementCsv(result) },
            { file: `${stem}.meta.csv`, data: formatMetaCsv(result.meta) },
          ];
          const moderator = `${stem}.moderator.csv`;
          if (result.meta.moderator !== null) files.push({ file: moderator, data: formatModeratorCsv(result.meta) });
          // An earlier analysis's moderator table would otherwise be read as this one's.
          writeFilesTogether(files, result.meta.moderator === null ? [moderator] : []);
          process.stderr.write(`genstudy: wrote ${files.map((f) => f.file).join(', ')}\n`);
        } else {
          writeFileAtomic(outFile, text);
          process.stderr.write(`genstudy: wrote ${outFile}\n`);
        }
      } else if (typeof text === 'string') {
        // The table quotes run and test-set names; JSON escapes control characters itself, CSV is data.
        process.stdout.write(flags.format === 'table' ? terminalSafe(text, { lines: true }) : text);
      } else {
        await writeParts(process.stdout, text);
      }
    });
}

/**
 * The input read, described and checked, as the series of the metric analysed (undefined with
 * --dry-run). A function of its own so that the score columns are garbage once it returns: at 15M
 * scores they are ~300 MB the analysis does not need.
 */
async function readSeries(input: string, flags: AnalyzeFlags, opts: AnalyzeOptions): Promise<RunSeries[] | undefined> {
  const reading = await readAndDescribe(input, flags);
  const { scores } = reading;
  if (flags.dryRun) return undefined;
  if (scores.length) checkNamedTestSets(scores, input, { control: flags.control, testSets: opts.testSets });
  const metric = chooseMetric(scores, flags.metric, input);
  const lacking = lackingMetricNote(scores, metric);
  if (lacking !== undefined) process.stderr.write(`genstudy: note: ${terminalSafe(lacking)}\n`);
  const series = buildRunSeries(scores, metric, { sampleSize: sampleSizeFlag(flags) });
  if (reading.exampleResults !== undefined) {
    const notes = attachErrorCovariance(series, reading.exampleResults, { metric, testSets: [flags.control] });
    for (const note of notes) process.stderr.write(`genstudy: note: ${terminalSafe(note)}\n`);
  }
  for (const s of series) {
    if (s.incompleteSteps.length) {
      const first = s.incompleteSteps[0];
      process.stderr.write(`genstudy: run "${terminalSafe(s.run)}": ${s.incompleteSteps.length} step(s) left out because some ` +
        `test set has no score there (e.g. step ${first.step}: ${terminalSafe(first.missing.join(', '))})\n`);
    }
  }
  return series;
}

/** Writes a text in parts to a stream, waiting for it to drain when it asks to, so the parts are not all held at once. */
async function writeParts(out: NodeJS.WritableStream, parts: Iterable<string>): Promise<void> {
  for (const part of parts) if (!out.write(part)) await new Promise((resolve) => out.once('drain', resolve));
}

function chooseMetric(scores: ScoreColumns, wanted: string | undefined, input: string): string {
  const metrics = availableMetrics(scores);
  if (metrics.length === 0) {
    throw new UserError(`${input}: no scores to analyse (a store keeps prompt variants apart: choose one with --prompt-variant)`);
  }
  if (wanted !== undefined) {
    if (!metrics.includes(wanted)) throw new UserError(`${input}: no scores for metric "${wanted}" ${knownNamesText(wanted, metrics)}`);
    return wanted;
  }
  if (metrics.length === 1) return metrics[0];
  for (const m of ['accuracy', 'acc']) if (metrics.includes(m)) return m;
  throw new UserError(`${input}: several metrics (${metrics.join(', ')}); choose one with --metric`);
}
