// A Hugging Face Trainer's evaluation logs as score rows: `trainer_state.json`'s "log_history" holds one
// entry per evaluation with "step" and, per eval dataset, `eval_<name>_<metric>` (a dict of eval
// datasets: transformers 5.18.0 trainer.py:2754 evaluates each with metric_key_prefix
// "eval_<name>", and :3004 prefixes every compute_metrics key with it), or `eval_<metric>` with a
// single eval dataset (read as test set "eval"). speed_metrics (trainer_utils.py:531) adds
// `<prefix>_runtime`, `_samples_per_second`, `_steps_per_second` to every evaluation: those name the
// datasets and are not scores. A run folder's own trainer_state.json is written at the end of
// training and each checkpoint-N/trainer_state.json holds the history up to N, so per run the file
// with the largest global_step is read; the run is the run folder (a checkpoint's parent).
import { readFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';
import { checkValueRange, type ScoreRow } from './score-row.ts';
import type { ScoreReading } from './score-reading.ts';

const CHECKPOINT_FOLDER = /^checkpoint-\d+$/;
const SPEED_SUFFIXES = ['_runtime', '_samples_per_second', '_steps_per_second'];

interface State { file: string; globalStep: number; history: Record<string, unknown>[] }

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
  const notes: string[] = [];
  for (const [runFolder, state] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rel = relative(resolve(root), resolve(runFolder));
    const run = rel === '' ? basename(resolve(root)) : rel.split(sep).join('/');
    const before = rows.length;
    rows.push(...evalRows(state, run));
    if (rows.length === before) notes.push(`${state.file}: no evaluation entries (eval_* keys) in log_history; run "${run}" has no scores`);
  }
  if (rows.length === 0) {
    throw new UserError(`${root}: the trainer_state.json files log no evaluations (no eval_* keys in log_history): train with an ` +
      `eval_dataset and an eval strategy`);
  }
  return {
    rows,
    description: `Hugging Face Trainer state, ${latest.size} run folder(s); run from the run folder, step from log_history[].step, test ` +
      `set and metric from eval_<set>_<metric>`,
    notes,
  };
}

async function readState(file: string): Promise<State> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UserError(`${file}: cannot read as JSON (${(err as Error).message})`);
  }
  const history = (doc as { log_history?: unknown })?.log_history;
  if (!Array.isArray(history)) throw new UserError(`${file}: field "log_history": expected the list a Trainer writes`);
  const globalStep = Number((doc as { global_step?: unknown }).global_step ?? 0);
  return { file, globalStep: Number.isFinite(globalStep) ? globalStep : 0, history };
}

function evalRows(state: State, run: string): ScoreRow[] {
  const rows: ScoreRow[] = [];
  const seen = new Map<string, number>();
  state.history.forEach((entry, i) => {
    const keys = Object.keys(entry).filter((k) => k.startsWith('eval_'));
    if (keys.length === 0) return;
    const step = entry.step;
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
      throw new UserError(`${state.file}, log_history[${i}].step: expected a whole number >= 0, got ${JSON.stringify(step)}`);
    }
    // the datasets are what the speed metrics name: eval_<name>_runtime, or eval_runtime for one
    const names = keys.filter((k) => k.endsWith('_runtime'))
      .map((k) => k.slice('eval_'.length, -'_runtime'.length))
      .sort((a, b) => b.length - a.length);
    for (const key of keys) {
      const value = entry[key];
      if (typeof value !== 'number' || SPEED_SUFFIXES.some((s) => key.endsWith(s))) continue;
      const rest = key.slice('eval_'.length);
      const name = names.find((n) => n !== '' && rest.startsWith(`${n}_`));
      const testSet = name ?? 'eval';
      const metric = name ? rest.slice(name.length + 1) : rest;
      const origin = `${state.file}, field "log_history[${i}].${key}"`;
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
