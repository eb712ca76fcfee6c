// The flags about reading scores that `analyze` and `report` share, declared once: the input
// argument's help, a wide table's column mapping, the runs' names (a prefix taken off, names given),
// the sample size of scores that do not give theirs, and --dry-run (say how the input was read, then stop).
import { Command } from 'commander';
import { readScoreInput, SCORE_INPUTS, type ReadScoreOptions } from '../analyze/read-scores.ts';
import { parseRunNamePairs, readRunNameFile, type RunNaming } from '../analyze/run-names.ts';
import { samplingNote } from '../analyze/sampling-summary.ts';
import { summarizeReading, type ScoreReading } from '../analyze/score-reading.ts';
import { readExampleResultsTable } from '../analyze/example-results-table.ts';
import { wholeNumber } from './flag-values.ts';
import { UserError } from '../errors.ts';
import { terminalSafe } from '../terminal-safe.ts';

/** The input argument's help: the inputs read-scores.ts reads. */
export const SCORE_INPUT_HELP = SCORE_INPUTS;

export interface ScoreInputFlags {
  columns?: string[]; dryRun?: boolean; promptVariant: string; sampleSize?: string; exampleResults?: string;
  stripPrefix?: string; runName?: string[]; runNames?: string;
}

export function addScoreInputOptions(cmd: Command): Command {
  return cmd
    .option('--columns <column=set:metric...>',
      'wide tables: the test set and metric of columns whose names do not say them, e.g. "eval/mnli_acc=mnli:accuracy"')
    .option('--strip-prefix <text>', 'take this text off the start of every run name that begins with it, e.g. /scratch/me/runs/ ' +
      '(a renamed run keeps its name as read in attribute source_run)')
    .option('--run-name <old=new>', 'give the run read as <old> the name <new> (repeat the flag for each run; wins over --strip-prefix)',
      (value: string, earlier: string[] = []) => [...earlier, value])
    .option('--run-names <file>', 'a CSV with columns old, new: each run\'s name as read and the name to give it')
    .option('--sample-size <n>', 'take every score that gives neither its own n nor a stderr to be a proportion over n examples ' +
      '(for the control\'s sampling noise)')
    .option('--example-results <file>', 'per-example results behind the scores, for the control\'s errors\' covariance across ' +
      'checkpoints (a fixed test set): CSV, TSV or JSONL with columns run, step, test_set, example, correct (1/0); runs named as the ' +
      'input names them. A genstudy store and lm-eval --log_samples output hold them already')
    .option('--dry-run', 'say how the input was read (runs, steps, test sets, metrics) and stop');
}

/** --sample-size as a number, or undefined when not given. */
export function sampleSizeFlag(flags: ScoreInputFlags): number | undefined {
  return wholeNumber('--sample-size', flags.sampleSize, { min: 1 });
}

/** --strip-prefix, --run-name and --run-names as one naming (a name given by both flags must agree). */
export async function runNamingFlags(flags: ScoreInputFlags): Promise<RunNaming> {
  const pairs = parseRunNamePairs(flags.runName ?? []);
  const fromFile = flags.runNames === undefined ? new Map<string, string>() : await readRunNameFile(flags.runNames);
  for (const [from, to] of pairs) {
    const other = fromFile.get(from);
    if (other !== undefined && other !== to) {
      throw new UserError(`--run-name ${from}=${to}: ${flags.runNames} names run "${from}" "${other}"`);
    }
  }
  const names = new Map([...fromFile, ...pairs]);
  return { ...(flags.stripPrefix === undefined ? {} : { stripPrefix: flags.stripPrefix }), ...(names.size ? { names } : {}) };
}

/** What the flags ask of the reading, for readScoreInput (and the report, which reads the input again). */
export async function scoreReadOptions(flags: ScoreInputFlags): Promise<ReadScoreOptions> {
  return { promptVariant: flags.promptVariant, columns: flags.columns, runNames: await runNamingFlags(flags) };
}

/** Reads the input and writes the summary line and any notes to stderr (stdout with --dry-run). */
export async function readAndDescribe(input: string, flags: ScoreInputFlags): Promise<ScoreReading> {
  const sampleSize = sampleSizeFlag(flags);
  const reading = await readScoreInput(input, await scoreReadOptions(flags));
  if (flags.exampleResults !== undefined) {
    if (reading.exampleResults !== undefined) {
      throw new UserError(`--example-results ${flags.exampleResults}: ${input} holds per-example results already (a genstudy store's ` +
        `answers, lm-eval's samples files); give the flag for scores without them`);
    }
    reading.exampleResults = readExampleResultsTable(flags.exampleResults);
    reading.notes.push(`per-example results from ${flags.exampleResults}: the control's errors' covariance across checkpoints ` +
      'is estimated from them where they give its scores');
  }
  const out = flags.dryRun ? process.stdout : process.stderr;
  // Both name the input's runs and test sets.
  out.write(`${flags.dryRun ? '' : 'genstudy: '}${terminalSafe(summarizeReading(input, reading, sampleSize))}\n`);
  const sampling = samplingNote(reading.scores, sampleSize);
  for (const note of sampling === undefined ? reading.notes : [...reading.notes, sampling]) {
    out.write(`${flags.dryRun ? '' : 'genstudy: '}note: ${terminalSafe(note)}\n`);
  }
  return reading;
}
