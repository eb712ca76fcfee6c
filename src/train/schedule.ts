// Learning-rate schedules with Hugging Face transformers' semantics (optimization.py,
// get_{linear,cosine,constant}_schedule_with_warmup): the multiplier at optimiser step s (0-based,
// the number of updates already made) is s / warmup during warmup, then
//   linear:   max(0, (total - s) / max(1, total - warmup))
//   cosine:   max(0, 0.5 (1 + cos(pi * 2 * 0.5 * progress))), progress = (s - warmup) / max(1, total - warmup)
//   constant: 1
// Warmup is given in steps or as a ratio of the total (Trainer: ceil(ratio * total) when steps are 0).
import { UserError } from '../errors.ts';

export const SCHEDULES = ['linear', 'cosine', 'constant'] as const;
export type ScheduleName = (typeof SCHEDULES)[number];

export function warmupStepsOf(total: number, warmupSteps = 0, warmupRatio = 0): number {
  if (!Number.isInteger(warmupSteps) || warmupSteps < 0) throw new UserError(`warmup steps must be a whole number >= 0, got ${warmupSteps}`);
  if (!(warmupRatio >= 0 && warmupRatio <= 1)) throw new UserError(`warmup ratio must be in [0, 1], got ${warmupRatio}`);
  return warmupSteps > 0 ? warmupSteps : Math.ceil(warmupRatio * total);
}

/** The multiplier of the base learning rate at optimiser step `step` (0-based). */
export function lrMultiplier(name: ScheduleName, step: number, total: number, warmup: number): number {
  if (step < warmup) return step / Math.max(1, warmup);
  switch (name) {
    case 'constant': return 1;
    case 'linear': return Math.max(0, (total - step) / Math.max(1, total - warmup));
    case 'cosine': {
      const progress = (step - warmup) / Math.max(1, total - warmup);
      return Math.max(0, 0.5 * (1 + Math.cos(Math.PI * 2 * 0.5 * progress)));
    }
    default: throw new UserError(`schedule "${String(name)}" is not known; expected one of ${SCHEDULES.join(', ')}`);
  }
}
