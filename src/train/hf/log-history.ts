// The Trainer's log_history (trainer_state.json) as genstudy's training log: the newest
// trainer_state.json of a run folder (the one the Trainer writes at the end, or the last
// checkpoint's while it trains), one entry per logged step with a loss.
import fs from 'node:fs';
import path from 'node:path';
import { parsePythonJson } from '../../json-text.ts';
import type { LogEntry } from '../checkpoints.ts';

// null where Python wrote NaN or an infinity (an fp16 run's grad_norm), as parsePythonJson reads them
interface TrainerLogEntry { step?: number; loss?: number | null; learning_rate?: number | null; grad_norm?: number | null; epoch?: number }

/** Checkpoint folders the Trainer completed (checkpoint-N with trainer_state.json), by step. */
export function trainerCheckpoints(outDir: string): { step: number; dir: string }[] {
  if (!fs.existsSync(outDir)) return [];
  return fs.readdirSync(outDir)
    .map((n) => /^checkpoint-(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null && fs.existsSync(path.join(outDir, m[0], 'trainer_state.json')))
    .map((m) => ({ step: Number(m[1]), dir: path.join(outDir, m[0]) }))
    .sort((a, b) => a.step - b.step);
}

/** A Trainer's state; undefined while the file is being written. */
function stateOf(file: string): { global_step: number; log_history: (TrainerLogEntry | null)[] } | undefined {
  try {
    const s = parsePythonJson(fs.readFileSync(file, 'utf8'), file).value as { global_step?: unknown; log_history?: unknown };
    return typeof s.global_step === 'number' && Array.isArray(s.log_history)
      ? { global_step: s.global_step, log_history: s.log_history as (TrainerLogEntry | null)[] }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The log_every and total steps of the prepared run, when there is one (the runner logs every step). */
function logPolicy(outDir: string): { every: number; total: number } | undefined {
  try {
    const run = JSON.parse(fs.readFileSync(path.join(outDir, 'genstudy-hf', 'run.json'), 'utf8')) as {
      settings?: { log_every?: number; total_steps?: number };
    };
    const { log_every: every, total_steps: total } = run.settings ?? {};
    return typeof every === 'number' && typeof total === 'number' ? { every, total } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The training log so far: entries with a loss from the most advanced trainer_state.json in
 * `outDir`, at the steps genstudy's built-in trainer logs (every log_every-th and the last).
 */
export function readLogHistory(outDir: string): LogEntry[] {
  const policy = logPolicy(outDir);
  const files = [path.join(outDir, 'trainer_state.json'), ...trainerCheckpoints(outDir).map((c) => path.join(c.dir, 'trainer_state.json'))];
  let best: { global_step: number; log_history: (TrainerLogEntry | null)[] } | undefined;
  for (const f of files) {
    const s = fs.existsSync(f) ? stateOf(f) : undefined;
    if (s && (!best || s.global_step > best.global_step)) best = s;
  }
  return (best?.log_history ?? [])
    .filter((e): e is TrainerLogEntry => e !== null && typeof e.loss === 'number' && typeof e.step === 'number')
    .filter((e) => !policy || e.step! % policy.every === 0 || e.step === policy.total)
    .map((e) => ({ step: e.step!, loss: e.loss!, learningRate: e.learning_rate ?? NaN, gradNorm: e.grad_norm ?? NaN, tokensPerSecond: NaN,
      epoch: e.epoch ?? 0 }));
}
