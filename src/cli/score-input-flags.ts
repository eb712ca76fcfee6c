// The flags about reading scores that `analyze` and `report` share, declared once: the input
// argument's help, a wide table's column mapping, the sample size of scores that do not give theirs,
// and --dry-run (say how the input was read, then stop).
import { Command } from 'commander';
import { readScoreInput } from '../analyze/read-scores.ts';
import { samplingNote } from '../analyze/sampling-summary.ts';
import { summarizeReading, type ScoreReading } from '../analyze/score-reading.ts';
import { wholeNumber } from './flag-values.ts';
import { terminalSafe } from '../terminal-safe.ts';

export const SCORE_INPUT_HELP = 'a genstudy results store (.sqlite), ' +
  'a score table (CSV/TSV/JSONL: long with run, step, test_set, metric, value; ' +
  'or wide with a step column and one column per test set and metric, as W&B and pandas export), ' +
  'or a folder of lm-evaluation-harness output (0.3 or 0.4) or Trainer run folders (trainer_state.json)';

export interface ScoreInputFlags { columns?: string[]; dryRun?: boolean; promptVariant: string; sampleSize?: string }

export function addScoreInputOptions(cmd: Command): Command {
  return cmd
    .option('--columns <column=set:metric...>',
      'wide tables: the test set and metric of columns whose names do not say them, e.g. "eval/mnli_acc=mnli:accuracy"')
    .option('--sample-size <n>', 'take every score that gives neither its own n nor a stderr to be a proportion over n examples ' +
      '(for the control\'s sampling noise)')
    .option('--dry-run', 'say how the input was read (runs, steps, test sets, metrics) and stop');
}

/** --sample-size as a number, or undefined when not given. */
export function sampleSizeFlag(flags: ScoreInputFlags): number | undefined {
  return wholeNumber('--sample-size', flags.sampleSize, { min: 1 });
}

/** Reads the input and writes the summary line and any notes to stderr (stdout with --dry-run). */
export async function readAndDescribe(input: string, flags: ScoreInputFlags): Promise<ScoreReading> {
  const sampleSize = sampleSizeFlag(flags);
  const reading = await readScoreInput(input, { promptVariant: flags.promptVariant, columns: flags.columns });
  const out = flags.dryRun ? process.stdout : process.stderr;
  // Both name the input's runs and test sets.
  out.write(`${flags.dryRun ? '' : 'genstudy: '}${terminalSafe(summarizeReading(input, reading, sampleSize))}\n`);
  const sampling = samplingNote(reading.rows, sampleSize);
  for (const note of sampling === undefined ? reading.notes : [...reading.notes, sampling]) {
    out.write(`${flags.dryRun ? '' : 'genstudy: '}note: ${terminalSafe(note)}\n`);
  }
  return reading;
}
