// The verdict: one word per pair (does its sign generalise across runs?) and the one sentence that
// answers study A's question. Computed here only; the CLI table and the HTML report render it.
import type { AnalysisResult, Agreement, PairResult } from './analysis.ts';

/** One word for the agreement row: does the pair's sign generalise across runs? */
export type SignVerdict = 'positive in all' | 'negative in all' | 'sign differs' | 'positive or none' | 'negative or none' | 'none significant';

export function signVerdict(a: Agreement): SignVerdict {
  if (a.positive > 0 && a.negative > 0) return 'sign differs';
  if (a.positive === a.runs && a.runs > 0) return 'positive in all';
  if (a.negative === a.runs && a.runs > 0) return 'negative in all';
  if (a.positive > 0) return 'positive or none';
  if (a.negative > 0) return 'negative or none';
  return 'none significant';
}

export function isSignificant(p: Pick<PairResult, 'r' | 'p_adjusted'>, alpha: number): boolean {
  return p.r !== null && p.p_adjusted !== null && p.p_adjusted < alpha;
}

/** "Yes / Partly / No: across N runs, ..." (the answer to "do generalisation results generalise?"). */
export function verdictSentence(result: AnalysisResult, ctx: { control: string; alpha: number }): string {
  const runs = result.runs.length;
  if (runs === 0) return 'No run could be analysed.';
  const verdicts = result.agreement.map(signVerdict);
  const pairs = verdicts.length;
  if (runs === 1) {
    const signs = result.runs[0].pairs.filter((p) => isSignificant(p, ctx.alpha)).length;
    return `Only one run could be analysed, so agreement across runs is not tested: in it, ${signs} of ${pairs} pairs of OOD test sets are significantly correlated (adjusted p < ${ctx.alpha}).`;
  }
  const consistent = verdicts.filter((v) => v === 'positive in all' || v === 'negative in all').length;
  const differs = verdicts.filter((v) => v === 'sign differs').length;
  const none = verdicts.filter((v) => v === 'none significant').length;
  const partial = pairs - consistent - differs - none;
  // The first clause always, the others only when they count something.
  const rest = [
    differs ? `${differs} change sign between runs` : '',
    partial ? `${partial} ${partial === 1 ? 'is' : 'are'} significant in some runs only` : '',
    none ? `${none} ${none === 1 ? 'is' : 'are'} significant in none` : '',
  ].filter(Boolean);
  const clauses = [`${consistent} of ${pairs} pairs of OOD test sets keep the same significant sign in every run`, ...rest];
  const counts = clauses.length === 1 ? clauses[0] : `${clauses.slice(0, -1).join(', ')} and ${clauses[clauses.length - 1]}`;
  // A pair significant in no run is consistent too (no relation anywhere); only a sign change or a
  // sign in some runs and not others counts against generalising.
  const answer = differs > 0 ? 'No' : partial > 0 ? 'Partly' : 'Yes';
  return `${answer}: across ${runs} runs, ${counts} (partial correlations with "${ctx.control}" regressed out, adjusted p < ${ctx.alpha}).`;
}
