// The verdict: one word per pair of OOD sets, from the evidence across runs (the pair's
// random-effects meta-analysis, pair-meta.ts; headline.ts counts the words). Computed here only;
// the CLI table, the JSON, the CSV, the report and designed-against-found (the demo) all read the
// word from PairMeta.verdict.
//
// The four outcomes, tried in this order (why this order: the margin is what the researcher said
// does not matter, so a pair inside it is negligible even when its tiny effect is consistent):
// - negligible everywhere: the 95% prediction interval for a new run lies inside +/- the
//   equivalence margin (--equivalence-margin, default 0.1): an equivalence test on the interval a
//   reader sees, so "no relation" is shown, not assumed from a non-significant p;
// - generalises: the pooled effect is significant after the correction over pairs and the 95%
//   prediction interval keeps one sign (the next model is expected to show the same sign);
// - depends on the model: the runs differ by more than their sampling error (Cochran's Q, p
//   corrected over pairs like the pooled p, < alpha) and the prediction interval spans both signs;
// - inconclusive: none of these (too few runs, too wide an interval, or significant only before
//   correcting for the number of pairs: the reason says which).
// A prediction interval needs three runs, so with fewer every pair is inconclusive. The rates at
// which each word is declared when the truth is a null, a common effect, an effect at the margin
// or a model-dependent effect are measured by scripts/verdict-calibration.ts (docs/analyze.md).
import type { Correction } from '../stats/index.ts';
import { intervalText, pValueText } from './text-cells.ts';

/** The four outcomes a pair can have, in the order the headline counts them. */
export const PAIR_VERDICTS = ['generalises', 'depends on the model', 'negligible everywhere', 'inconclusive'] as const;
export type PairVerdict = (typeof PAIR_VERDICTS)[number];

export interface VerdictContext {
  alpha: number;
  equivalenceMargin: number;
  correction: Correction;
  /** Pairs in the correction's family (for "not significant after correcting for N pairs"). */
  pairs: number;
}

/** What a verdict is decided on: the pair's pooled estimate (pair-meta.ts's PairMeta has these fields). */
export interface VerdictInputs {
  runs: number;
  r: number | null;
  p: number | null;
  p_adjusted: number | null;
  q_p: number | null;
  q_p_adjusted: number | null;
  prediction95: [number, number] | null;
}

/** One pair's verdict with the reason, in words that name the interval it was decided on. */
export function pairVerdict(m: VerdictInputs, ctx: VerdictContext): { verdict: PairVerdict; why: string } {
  const inconclusive = (why: string) => ({ verdict: 'inconclusive' as const, why });
  if (m.runs === 0 || m.r === null) return inconclusive('no run to pool');
  if (m.prediction95 === null) {
    return inconclusive(`${m.runs} run${m.runs === 1 ? '' : 's'} pooled: a prediction interval for a new run needs at least 3`);
  }
  const [lo, hi] = m.prediction95;
  const pi = `95% prediction interval ${intervalText(m.prediction95)}`;
  const margin = ctx.equivalenceMargin;
  if (-margin < lo && hi < margin) return { verdict: 'negligible everywhere', why: `${pi} inside ±${margin}` };
  const significant = m.p_adjusted !== null && m.p_adjusted < ctx.alpha;
  const oneSign = lo > 0 || hi < 0;
  const pooled = `pooled r ${m.r.toFixed(3)}`;
  const adjustedP = `${corrected(ctx)} p ${pval(m.p_adjusted)}`;
  if (significant && oneSign) return { verdict: 'generalises', why: `${pooled} (${adjustedP}), ${pi} all ${lo > 0 ? 'positive' : 'negative'}` };
  const heterogeneous = m.q_p_adjusted !== null && m.q_p_adjusted < ctx.alpha;
  if (heterogeneous && lo < 0 && hi > 0) {
    return { verdict: 'depends on the model', why: `runs differ (Q ${corrected(ctx)} p ${pval(m.q_p_adjusted)}), ${pi} spans both signs` };
  }
  if (!significant && m.p !== null && m.p < ctx.alpha) {
    return inconclusive(`${pooled} significant before, not after correcting for ${ctx.pairs} pairs (p ${pval(m.p)}, ${adjustedP})`);
  }
  if (significant) {
    return inconclusive(`${pooled} significant (${adjustedP}) but the ${pi} spans both signs and the runs do not differ significantly`);
  }
  return inconclusive(`${pooled} not significant (${adjustedP}); the ${pi} is wider than ±${margin}`);
}

function corrected(ctx: Pick<VerdictContext, 'correction' | 'pairs'>): string {
  return ctx.correction === 'none' || ctx.pairs <= 1 ? 'uncorrected' : `${ctx.correction}-adjusted`;
}

function pval(p: number | null): string {
  return p === null ? '-' : pValueText(p);
}
