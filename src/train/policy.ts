// Which optimiser steps get a checkpoint: before training (step 0), every N steps, at `logSpaced`
// log-spaced steps between 1 and the last step (rounded, duplicates merged: dense early, where a
// fine-tuned model changes fastest), and at the end.
import { UserError } from '../errors.ts';

export interface CheckpointPolicy {
  atStart?: boolean;
  every?: number;
  logSpaced?: number;
  atEnd?: boolean;
  /** Extra steps to save at. */
  steps?: number[];
}

export function checkpointSteps(policy: CheckpointPolicy, total: number): number[] {
  const out = new Set<number>();
  if (policy.atStart ?? true) out.add(0);
  if (policy.atEnd ?? true) out.add(total);
  if (policy.every !== undefined) {
    if (!Number.isInteger(policy.every) || policy.every < 1) {
      throw new UserError(`checkpoint every: expected a whole number >= 1, got ${policy.every}`);
    }
    for (let s = policy.every; s <= total; s += policy.every) out.add(s);
  }
  if (policy.logSpaced !== undefined && policy.logSpaced > 0 && total >= 1) {
    const n = policy.logSpaced;
    if (!Number.isInteger(n)) throw new UserError(`checkpoint logSpaced: expected a whole number, got ${n}`);
    for (let i = 0; i < n; i++) out.add(Math.round(Math.exp((n === 1 ? 1 : i / (n - 1)) * Math.log(total))));
  }
  for (const s of policy.steps ?? []) {
    if (!Number.isInteger(s) || s < 0) throw new UserError(`checkpoint steps: expected whole numbers >= 0, got ${s}`);
    if (s <= total) out.add(s);
  }
  return [...out].sort((a, b) => a - b);
}
