/**
 * Multiple-testing corrections of p-values, as statsmodels.stats.multitest.multipletests returns
 * them (method names: ours -> statsmodels):
 *   bonferroni -> 'bonferroni': p_i m;
 *   holm -> 'holm': sorted ascending, p_(i) (m - i + 1), then a running maximum (step-down);
 *   bh -> 'fdr_bh': sorted ascending, p_(i) m / i, then a running minimum from the top (step-up);
 *   by -> 'fdr_by': as bh with m replaced by m * sum_{j<=m} 1/j (Benjamini and Yekutieli 2001);
 *   none: unchanged.
 * Every adjusted value is capped at 1. Nulls (tests that could not be run) pass through as null
 * and are not counted in m.
 * Sources: statsmodels multitest.py (multipletests, fdrcorrection); Holm 1979; Benjamini and
 * Hochberg 1995.
 */
import { UserError } from '../errors.ts';

export const CORRECTIONS = ['holm', 'bonferroni', 'bh', 'by', 'none'] as const;
export type Correction = typeof CORRECTIONS[number];

export function adjustPValues(p: (number | null)[], method: Correction): (number | null)[] {
  const idx: number[] = [];
  p.forEach((v, i) => {
    if (v === null) return;
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || v > 1) {
      throw new UserError(`p-value at index ${i} is ${String(v)}; expected a number in [0, 1] or null`);
    }
    idx.push(i);
  });
  const out: (number | null)[] = p.map((v) => v);
  const m = idx.length;
  if (m === 0 || method === 'none') return out;
  idx.sort((a, b) => (p[a] as number) - (p[b] as number));
  const sorted = idx.map((i) => p[i] as number);
  const adj = new Float64Array(m);
  switch (method) {
    case 'bonferroni':
      for (let i = 0; i < m; i++) adj[i] = sorted[i] * m;
      break;
    case 'holm': {
      let run = 0;
      for (let i = 0; i < m; i++) { run = Math.max(run, sorted[i] * (m - i)); adj[i] = run; }
      break;
    }
    case 'bh':
    case 'by': {
      let cm = 1;
      if (method === 'by') { cm = 0; for (let j = 1; j <= m; j++) cm += 1 / j; }
      let run = Infinity;
      for (let i = m - 1; i >= 0; i--) { run = Math.min(run, sorted[i] / ((i + 1) / m / cm)); adj[i] = run; }
      break;
    }
    default:
      throw new UserError(`correction must be one of holm, bonferroni, bh, by, none; got '${String(method)}'`);
  }
  for (let i = 0; i < m; i++) out[idx[i]] = Math.min(1, adj[i]);
  return out;
}
