// Checkpoint schedules of real fine-tuning runs to 20k steps, for bench/realistic-runs.ts:
//   even     every 500 steps from 0: 41 checkpoints, the textbook case.
//   log      30 log-spaced steps between 1 and 20k, plus 0, merged after rounding (the dense early
//            checkpoints of a log-spaced save policy, Pythia-like).
//   trainer  every 800 steps plus the final step 20k off that grid, plus 0 (a trainer's save_steps
//            with the end-of-training save: one short last gap).
//   olmo     every 1000 steps from 0 with 15% of the later checkpoints lost (failed uploads, pruned
//            storage), different ones in each run: gaps that are multiples of the usual one.
import type { Random } from '../src/stats/index.ts';

export const SCHEDULES = ['even', 'log', 'trainer', 'olmo'] as const;
export type ScheduleName = (typeof SCHEDULES)[number];

export const LAST_STEP = 20000;
const TRAINER_EVERY = 800;
const OLMO_EVERY = 1000;
const OLMO_MISSING = 0.15;
const LOG_POINTS = 30;

const grid = (every: number): number[] => Array.from({ length: Math.floor(LAST_STEP / every) + 1 }, (_, i) => i * every);

function logSteps(): number[] {
  const ln = Math.log(LAST_STEP);
  const steps = Array.from({ length: LOG_POINTS }, (_, i) => Math.round(Math.exp((ln * i) / (LOG_POINTS - 1))));
  return [...new Set([0, ...steps])];
}

/** The run's checkpoint steps, ascending; `random` is drawn from only where the schedule is random (olmo). */
export function scheduleSteps(schedule: ScheduleName, random: Random): number[] {
  switch (schedule) {
    case 'even': return grid(500);
    case 'log': return logSteps();
    case 'trainer': {
      const steps = grid(TRAINER_EVERY);
      return steps[steps.length - 1] === LAST_STEP ? steps : [...steps, LAST_STEP];
    }
    case 'olmo': {
      const later = grid(OLMO_EVERY).slice(1);
      const lost = Math.round(OLMO_MISSING * later.length);
      // A partial Fisher-Yates shuffle picks which checkpoints are lost, each subset equally likely.
      for (let i = 0; i < lost; i++) {
        const j = i + random.int(later.length - i);
        [later[i], later[j]] = [later[j], later[i]];
      }
      return [0, ...later.slice(lost).sort((a, b) => a - b)];
    }
  }
}
