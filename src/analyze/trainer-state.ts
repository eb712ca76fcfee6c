// A Hugging Face Trainer's evaluation logs as score rows: `trainer_state.json`'s "log_history" holds one
// entry per evaluation with "step" and, per eval dataset, `eval_<name>_<metric>` (a dict of eval
// datasets: transformers 5.18.0 trainer.py:2754 evaluates each with metric_key_prefix
// "eval_<name>", and :3004 prefixes every compute_metrics key with it), or `eval_<metric>` with a
// single eval dataset (read as test set "eval"). speed_metrics (trainer_utils.py:531) adds
// `<prefix>_runtime`, `_samples_per_second`, `_steps_per_second` to every evaluation: those name the
// datasets and are not scores. A run folder's own trainer_state.json is written at the end of
// training and each checkpoint-N/trainer_state.json holds the history up to N, so per run the file
// with the largest global_step is read; the run is the run folder (a checkpoint's parent). The file
// is Python's json: an fp16 run logs NaN grad_norms, read as missing (parsePythonJson), and a null
// log_history entry, which no Trainer writes but an edited file may hold, is skipped with a note.
// The entries with "loss" (the training loss, logged every logging_steps with "learning_rate" and
// "grad_norm": trainer.py _maybe_log_save_evaluate) are the run's training log, which the report
// draws as it draws a study's.
import { readFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { UserError, unreadable } from '../errors.ts';
import type { TrainingLogRecord } from '../store/result-store.ts';
import { parsePythonJson, type NonFiniteValue } from '../json-text.ts';
import { MISSING_SCORE_NOTE, NON_FINITE_NOTE, Tally } from './missing-values.ts';
import { checkValueRange, type ScoreRow } from './score-row.ts';
import type { FolderReader } from './folder-reader.ts';
import { ScoreColumns } from './score-columns.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';

const CHECKPOINT_FOLDER = /^checkpoint-\d+$/;
const SPEED_SUFFIXES = ['_runtime', '_samples_per_second', '_steps_per_second'];

interface State { file: string; globalStep: number; history: unknown[]; nonFinite: NonFiniteValue[] }
/** What the chosen files hold that is read as missing or skipped, one note each. */
interface Tallies { nonFinite: Tally; missingScores: Tally; nullEntries: Tally }

/** Trainer run folders as a folder format (folder-reader.ts). */
export const TRAINER_STATE_READER: FolderReader = {
  listedAs: 'trainerStates',
  claims: (name) => name === 'trainer_state.json',
  inputWords: 'Trainer run folders (trainer_state.json)',
  lookedFor: 'trainer_state.json',
  filesWord: 'trainer_state.json file(s)',
  holds: 'Trainer run folders',
  alone: 'a Trainer run folder',
  read: async (folder, files) => ({ reading: await readTrainerStates(folder, files), leftOut: [] }),
};

export async function readTrainerStates(root: string, files: readonly string[]): Promise<ScoreReading> {
  const latest = new Map<string, State>();
  for (const file of files) {
    const state = await readState(file);
    const folder = dirname(file);
    const runFolder = CHECKPOINT_FOLDER.test(basename(folder)) ? dirname(folder) : folder;
    const held = latest.get(runFolder);
    if (!held || state.globalStep > held.globalStep) latest.set(runFolder, state);
  }
  const rows: ScoreRow[] = [];
  const trainingLog: TrainingLogRecord[] = [];
  const notes: string[] = [];
  const tallies: Tallies = { nonFinite: new Tally(), missingScores: new Tally(), nullEntries: new Tally() };
  for (const [runFolder, state] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rel = relative(resolve(root), resolve(runFolder));
    const run = rel === '' ? basename(resolve(root)) : rel.split(sep).join('/');
    const before = rows.length;
    tallies.nonFinite.addNonFinite(state.file, state.nonFinite);
    rows.push(...evalRows(state, run, tallies));
    trainingLog.push(...trainingLogOf(state, run));
    if (rows.length === before) notes.push(`${state.file}: no evaluation entries (eval_* keys) in log_history; run "${run}" has no scores`);
  }
  tallies.nonFinite.noteInto(notes, NON_FINITE_NOTE);
  tallies.missingScores.noteInto(notes, MISSING_SCORE_NOTE);
  tallies.nullEntries.noteInto(notes, 'log_history entr(ies) null or not an object, skipped');
  if (rows.length === 0) {
    throw new UserError(`${root}: the trainer_state.json files log no evaluations (no eval_* keys in log_history): train with an ` +
      `eval_dataset and an eval strategy`);
  }
  return scoreReading({
    scores: ScoreColumns.fromRows(rows),
    description: `Hugging Face Trainer state, ${latest.size} run folder(s); run from the run folder, step from log_history[].step, test ` +
      `set and metric from eval_<set>_<metric>` +
      (trainingLog.length ? `; training log from log_history's "loss" entries (${trainingLog.length})` : ''),
    notes,
    trainingLog,
  });
}

async function readState(file: string): Promise<State> {
  const text = await readFile(file, 'utf8').catch((err: unknown) => { throw unreadable(file, err); });
  const { value: doc, nonFinite } = parsePythonJson(text, file);
  const history = (doc as { log_history?: unknown } | null)?.log_history;
  if (!Array.isArray(history)) {
    throw new UserError(`${file}: field "log_history": expected the list a Trainer writes`, { file, field: 'log_history' });
  }
  const globalStep = Number((doc as { global_step?: unknown }).global_step ?? 0);
  return { file, globalStep: Number.isFinite(globalStep) ? globalStep : 0, history, nonFinite };
}

/** The entries logging the training loss, one per step (a later entry of a step replaces an earlier one, as in the store). */
function trainingLogOf(state: State, run: string): TrainingLogRecord[] {
  const bySteps = new Map<number, TrainingLogRecord>();
  state.history.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || !('loss' in item)) return;
    const entry = item as Record<string, unknown>;
    const step = checkedStep(entry.step, state.file, i);
    const number = (v: unknown) => (typeof v === 'number' ? v : null);
    bySteps.set(step, { run, step, loss: number(entry.loss), learningRate: number(entry.learning_rate), gradNorm: number(entry.grad_norm),
      tokensPerSecond: null });
  });
  return [...bySteps.values()].sort((a, b) => a.step - b.step);
}

function checkedStep(step: unknown, file: string, i: number): number {
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
    throw new UserError(`${file}, log_history[${i}].step: expected a whole number >= 0, got ${JSON.stringify(step)}`);
  }
  return step;
}

function evalRows(state: State, run: string, tallies: Tallies): ScoreRow[] {
  const rows: ScoreRow[] = [];
  const seen = new Map<string, number>();
  state.history.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      tallies.nullEntries.add(`${state.file}, field "log_history[${i}]"`);
      return;
    }
    const entry = item as Record<string, unknown>;
    const keys = Object.keys(entry).filter((k) => k.startsWith('eval_'));
    if (keys.length === 0) return;
    const step = checkedStep(entry.step, state.file, i);
    // the datasets are what the speed metrics name: eval_<name>_runtime, or eval_runtime for one
    const names = keys.filter((k) => k.endsWith('_runtime'))
      .map((k) => k.slice('eval_'.length, -'_runtime'.length))
      .sort((a, b) => b.length - a.length);
    for (const key of keys) {
      const value = entry[key];
      if (SPEED_SUFFIXES.some((s) => key.endsWith(s))) continue;
      const origin = `${state.file}, field "log_history[${i}].${key}"`;
      if (value === null) tallies.missingScores.add(origin);
      if (typeof value !== 'number') continue;
      const rest = key.slice('eval_'.length);
      const name = names.find((n) => n !== '' && rest.startsWith(`${n}_`));
      const testSet = name ?? 'eval';
      const metric = name ? rest.slice(name.length + 1) : rest;
      checkValueRange(metric, value, origin);
      // trainer.evaluate() after training logs the last evaluation again at the same step
      const id = JSON.stringify([step, testSet, metric]);
      if (seen.has(id) && seen.get(id) === value) continue;
      seen.set(id, value);
      rows.push({ run, step, testSet, metric, value, attributes: { source: 'trainer' }, origin });
    }
  });
  return rows;
}
