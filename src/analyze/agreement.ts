// Across runs: per pair of OOD sets, how many runs give a significantly positive, a significantly
// negative, and no significant partial correlation (adjusted p < alpha).
import type { Agreement, PairResult } from './analysis.ts';
import { isSignificant } from './verdict.ts';

export function agreementAcrossRuns(runs: readonly { pairs: readonly Pick<PairResult, 'a' | 'b' | 'r' | 'p_adjusted'>[] }[], alpha: number): Agreement[] {
  const byPair = new Map<string, Agreement>();
  for (const run of runs) {
    for (const p of run.pairs) {
      const key = `${p.a}\u0000${p.b}`;
      let entry = byPair.get(key);
      if (!entry) byPair.set(key, (entry = { a: p.a, b: p.b, positive: 0, negative: 0, null: 0, runs: 0 }));
      entry.runs++;
      const significant = isSignificant(p, alpha);
      if (significant && p.r! > 0) entry.positive++;
      else if (significant && p.r! < 0) entry.negative++;
      else entry.null++;
    }
  }
  return [...byPair.values()].sort((x, y) => (x.a === y.a ? cmp(x.b, y.b) : cmp(x.a, y.a)));
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
