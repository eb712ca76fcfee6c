// Which checkpoints a trainer saved that were never evaluated. The Trainer's save_total_limit
// deletes older checkpoint-N folders right after saving a new one (transformers' Trainer
// _save_checkpoint -> _rotate_checkpoints), so a watcher that fell behind never sees them; this
// module names every such step instead of letting the series shrink silently.
//
// The saved steps are the plan when genstudy launched the Trainer (run.json's save_steps), else
// what the newest checkpoint's trainer_state.json says: save_steps every N up to global_step
// (TrainerState records both). Steps past the newest one on disk are not yet due, not missing.
import fs from 'node:fs';
import path from 'node:path';
import { stepOfFolder } from '../evaluate/index.ts';
import { readStoreScores } from '../analyze/read-scores.ts';
import { parsePythonJson } from '../json-text.ts';

/** Steps of the checkpoint folders in `runDir` now. */
export function stepsOnDisk(runDir: string): number[] {
  if (!fs.existsSync(runDir)) return [];
  return fs.readdirSync(runDir).map((n) => stepOfFolder(n)).filter((s): s is number => s !== undefined).sort((a, b) => a - b);
}

/** The steps a Trainer run saved, from the newest trainer_state.json in `runDir` (undefined when none says). */
export function savedStepsFromTrainerState(runDir: string): number[] | undefined {
  for (const step of stepsOnDisk(runDir).reverse()) {
    const file = path.join(runDir, `checkpoint-${step}`, 'trainer_state.json');
    let state: { save_steps?: unknown; global_step?: unknown };
    try {
      // an fp16 run writes "grad_norm": NaN into the log; Python's JSON must not send us to an older checkpoint
      state = parsePythonJson(fs.readFileSync(file, 'utf8'), file).value as typeof state;
    } catch {
      continue;
    }
    const every = state.save_steps;
    const last = state.global_step;
    if (typeof every !== 'number' || typeof last !== 'number' || !(every >= 1) || !Number.isInteger(last)) return undefined;
    const out: number[] = [];
    for (let s = Math.ceil(every); s <= last; s += Math.ceil(every)) out.push(s);
    if (out[out.length - 1] !== last) out.push(last);
    return out;
  }
  return undefined;
}

/** The saved steps (up to the newest seen) that are neither evaluated nor still on disk to be evaluated. */
export function missingSteps(saved: readonly number[], evaluated: Iterable<number>, onDisk: readonly number[]): number[] {
  const have = new Set([...evaluated, ...onDisk]);
  const newest = Math.max(-Infinity, ...have);
  return saved.filter((s) => s > 0 && s <= newest && !have.has(s));
}

export function describeMissing(steps: readonly number[]): string {
  return `step${steps.length > 1 ? 's' : ''} ${steps.join(', ')} ${steps.length > 1 ? 'were' : 'was'} saved by the trainer but deleted before ` +
    'being evaluated (save_total_limit rotates old checkpoints): they are missing from the series';
}

/** The saved steps of run `run` that are neither evaluated (now, or before: the store) nor still on disk in `runDir`. */
export function reconcileRun(
  o: { saved: readonly number[]; evaluated: readonly number[]; storePath: string; run: string; runDir: string },
): number[] {
  let stored: number[] = [];
  try {
    stored = readStoreScores(o.storePath, '').filter((r) => r.run === o.run).map((r) => r.step);
  } catch {
    // No store yet: nothing was evaluated before.
  }
  return missingSteps(o.saved, [...o.evaluated, ...stored], stepsOnDisk(o.runDir));
}
