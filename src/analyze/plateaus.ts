// Plateaus: how many of a run's checkpoints hold a score vector (the control and every OOD set)
// that no other checkpoint has already. A small model's curve often sits still for several
// checkpoints; repeated rows are not new observations, so the tests count at most the distinct
// rows of each pair (stats/distinct-rows.ts), a count of its own (the warning names the run's),
// and a run where most checkpoints repeat gets a warning in the output.
import { countDistinctRows, denseIds } from '../stats/index.ts';

export interface Plateaus {
  /** Distinct score vectors among the run's checkpoints. */
  distinct: number;
  /** Set when most checkpoints repeat an earlier score vector. */
  warning?: string;
}

export function plateausOf(run: string, control: Float64Array, ood: Float64Array[]): Plateaus {
  const n = control.length;
  const distinct = countDistinctRows([control, ...ood].map(denseIds), n);
  const repeats = n - distinct;
  if (repeats * 2 <= n) return { distinct };
  return {
    distinct,
    warning: `run "${run}": ${repeats} of ${n} checkpoints repeat an earlier checkpoint's scores on every test set (${distinct} ` +
      `distinct): each pair's test counts at most that pair's own distinct checkpoints`,
  };
}
