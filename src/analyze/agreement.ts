// The papers' view across runs: per pair of OOD sets, how many runs give a significantly positive,
// a significantly negative, and no significant partial correlation (adjusted p < alpha), a word
// for that row, and the counts in one sentence. It counts signs only, so it cannot tell "no
// relation" from "no power": the answer genstudy gives is the per-pair verdict (verdict.ts).
import type { Agreement, PairResult } from './run-result.ts';

export function isSignificant(p: Pick<PairResult, 'r' | 'p_adjusted'>, alpha: number): boolean {
  return p.r !== null && p.p_adjusted !== null && p.p_adjusted < alpha;
}

export function agreementAcrossRuns(runs: readonly { pairs: readonly Pick<PairResult, 'a' | 'b' | 'r' | 'p_adjusted'>[] }[],
  alpha: number): Agreement[] {
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

/** The papers' view of one pair: which significant signs its runs show. */
export type SignVerdict = 'positive in all' | 'negative in all' | 'sign differs' | 'positive or none' | 'negative or none' | 'none significant';

export function signVerdict(a: Agreement): SignVerdict {
  if (a.positive > 0 && a.negative > 0) return 'sign differs';
  if (a.positive === a.runs && a.runs > 0) return 'positive in all';
  if (a.negative === a.runs && a.runs > 0) return 'negative in all';
  if (a.positive > 0) return 'positive or none';
  if (a.negative > 0) return 'negative or none';
  return 'none significant';
}

/** The sign counts in one sentence, as counts: no Yes or No (a pair significant nowhere may only lack power). */
export function signCountSentence(result: { runs: readonly unknown[]; agreement: readonly Agreement[] }, alpha: number): string {
  const runs = result.runs.length;
  const verdicts = result.agreement.map(signVerdict);
  const pairs = verdicts.length;
  const count = (...vs: SignVerdict[]) => verdicts.filter((v) => vs.includes(v)).length;
  const consistent = count('positive in all', 'negative in all');
  const differs = count('sign differs');
  const none = count('none significant');
  const partial = pairs - consistent - differs - none;
  const rest = [
    differs ? `${differs} change sign between runs` : '',
    partial ? `${partial} ${partial === 1 ? 'is' : 'are'} significant in some runs only` : '',
    none ? `${none} ${none === 1 ? 'is' : 'are'} significant in none` : '',
  ].filter(Boolean);
  const clauses = [`${consistent} of ${pairs} pairs keep the same significant sign in every run`, ...rest];
  const counts = clauses.length === 1 ? clauses[0] : `${clauses.slice(0, -1).join(', ')} and ${clauses[clauses.length - 1]}`;
  return `The papers' view (significant signs counted per run, adjusted p < ${alpha}): across ${runs} run${runs === 1 ? '' : 's'}, ${counts}.`;
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
