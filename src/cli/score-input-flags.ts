// The flags about reading scores that `analyze` and `report` share, declared once: the input
// argument's help, a wide table's column mapping, and --dry-run (say how the input was read, then stop).
import { Command } from 'commander';
import { readScoreInput } from '../analyze/read-scores.ts';
import { summarizeReading, type ScoreReading } from '../analyze/score-reading.ts';

export const SCORE_INPUT_HELP = 'a genstudy results store (.sqlite), ' +
  'a score table (CSV/TSV/JSONL: long with run, step, test_set, metric, value; ' +
  'or wide with a step column and one column per test set and metric, as W&B and pandas export), ' +
  'or a folder of lm-evaluation-harness output (0.3 or 0.4) or Trainer run folders (trainer_state.json)';

export interface ScoreInputFlags { columns?: string[]; dryRun?: boolean; promptVariant: string }

export function addScoreInputOptions(cmd: Command): Command {
  return cmd
    .option('--columns <column=set:metric...>',
      'wide tables: the test set and metric of columns whose names do not say them, e.g. "eval/mnli_acc=mnli:accuracy"')
    .option('--dry-run', 'say how the input was read (runs, steps, test sets, metrics) and stop');
}

/** Reads the input and writes the summary line and any notes to stderr (stdout with --dry-run). */
export async function readAndDescribe(input: string, flags: ScoreInputFlags): Promise<ScoreReading> {
  const reading = await readScoreInput(input, { promptVariant: flags.promptVariant, columns: flags.columns });
  const out = flags.dryRun ? process.stdout : process.stderr;
  out.write(`${flags.dryRun ? '' : 'genstudy: '}${summarizeReading(input, reading)}\n`);
  for (const note of reading.notes) out.write(`${flags.dryRun ? '' : 'genstudy: '}note: ${note}\n`);
  return reading;
}
