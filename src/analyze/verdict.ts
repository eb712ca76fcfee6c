// The verdict: one word per pair of OOD sets, from the evidence across runs (the pair's
// random-effects meta-analysis, pair-meta.ts), and the headline that counts the words. Computed
// here only; the CLI table, the JSON, the CSV, the report and designed-against-found (the demo)
// all read the word from here (PairMeta.verdict) and the answer from AnalysisResult.headline.
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
import type { AnalysisResult } from './analysis.ts';
import { isSignificant } from './agreement.ts';
import type { MetaAcrossRuns, PairMeta } from './pair-meta.ts';
import type { PairRobustness, Robustness } from './robustness.ts';
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

type VerdictInputs = Pick<PairMeta, 'runs' | 'r' | 'p' | 'p_adjusted' | 'q_p' | 'q_p_adjusted' | 'prediction95'>;

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

export interface Headline {
  /** Runs analysed. */
  runs: number;
  /** Pairs of OOD test sets judged. */
  pairs: number;
  /** How many pairs have each verdict. */
  counts: Record<PairVerdict, number>;
  /** Run results left out of the pooling as unstable (0 with --keep-unstable: then they are pooled). */
  unstableLeftOut: number;
  /** Runs left out of the whole analysis with too few checkpoints (AnalysisResult.leftOut). */
  runsLeftOut: number;
  /**
   * With robustness on: of the pairs that generalise or depend on the model, those whose verdict holds under fewer than half
   * of the analysis choices (robustness.ts). Absent with robustness off.
   */
  fragile?: number;
  /** The answer in one sentence: what analyze prints last, the demo prints and the report shows first. */
  sentence: string;
}

/** The answer to "do generalisation results generalise?", counting the four verdicts. */
export function headlineOf(
  result: Pick<AnalysisResult, 'runs'> & { meta: MetaAcrossRuns; robustness?: Robustness; leftOut?: AnalysisResult['leftOut'] },
  ctx: { control: string; alpha: number; equivalenceMargin: number; keepUnstable: boolean },
): Headline {
  const runs = result.runs.length;
  const pairs = result.meta.pairs;
  const counts = Object.fromEntries(PAIR_VERDICTS.map((v) => [v, pairs.filter((p) => p.verdict === v).length])) as Record<PairVerdict, number>;
  const unstable = pairs.reduce((t, p) => t + p.unstable.length, 0);
  const unstableLeftOut = ctx.keepUnstable ? 0 : unstable;
  const leftOut = result.leftOut ?? [];
  const robustness = result.robustness && new Map(result.robustness.pairs.map((p) => [`${p.a}\u0000${p.b}`, p]));
  const robustnessOf = (p: PairMeta) => robustness?.get(`${p.a}\u0000${p.b}`);
  const firm = pairs.filter((p) => p.verdict === 'generalises' || p.verdict === 'depends on the model');
  const fragile = firm.filter((p) => robustnessOf(p)?.fragile).length;
  const base = { runs, pairs: pairs.length, counts, unstableLeftOut, runsLeftOut: leftOut.length, ...(robustness ? { fragile } : {}) };
  const leftOutNote = leftOut.length === 0 ? '' : leftOut.length === 1
    ? ` 1 run with too few checkpoints was left out (${leftOut[0].run}).`
    : ` ${leftOut.length} runs with too few checkpoints were left out (${namesOf(leftOut.map((r) => r.run))}).`;
  if (runs === 0) return { ...base, sentence: `No run could be analysed.${leftOutNote}` };
  const unstableNote = unstable === 0 ? '' : ctx.keepUnstable
    ? ` ${unstable} run result${unstable === 1 ? ' was' : 's were'} unstable and pooled anyway (--keep-unstable).`
    : ` ${unstable} run result${unstable === 1 ? ' was' : 's were'} unstable and left out of the pooling ` +
      '(listed per pair; --keep-unstable pools them).';
  if (runs === 1) {
    const significant = result.runs[0].pairs.filter((p) => isSignificant(p, ctx.alpha)).length;
    return {
      ...base,
      sentence: `Only one run could be analysed, so no pair can be judged across runs (all ${pairs.length} inconclusive): in it, ` +
        `${significant} of ${pairs.length} pairs of OOD test sets are significantly correlated (adjusted p < ` +
        `${ctx.alpha}).${unstableNote}${leftOutNote}`,
    };
  }
  const of = (v: PairVerdict) => pairs.filter((p) => p.verdict === v);
  const named = (ps: PairMeta[], withSign: boolean) => (ps.length > 0 && ps.length <= 6
    ? ` (${ps.map((p) => `${p.a}–${p.b}${withSign && p.r !== null ? ` ${p.r > 0 ? '+' : '−'}` : ''}${holdsText(robustnessOf(p))}`).join(', ')})`
    : '');
  const n = counts;
  const clauses = [
    `${n.generalises} ${n.generalises === 1 ? 'generalises' : 'generalise'}${named(of('generalises'), true)}`,
    `${n['depends on the model']} ${n['depends on the model'] === 1 ? 'depends' : 'depend'} on the model${named(of('depends on the model'), false)}`,
    `${n['negligible everywhere']} ${n['negligible everywhere'] === 1 ? 'is' : 'are'} negligible everywhere (|r| < ` +
    `${ctx.equivalenceMargin})${named(of('negligible everywhere'), false)}`,
    `${n.inconclusive} ${n.inconclusive === 1 ? 'is' : 'are'} inconclusive${runs < 3 ? ' (a prediction interval needs at least 3 runs)' : ''}`,
  ];
  const fragileNote = !robustness || firm.length === 0 ? '' : fragileSentence(firm, fragile);
  return {
    ...base,
    sentence: `Across ${runs} runs, of ${pairs.length} pairs of OOD test sets (partial correlations with "${ctx.control}" regressed out, ` +
      `pooled over runs): ${clauses.slice(0, -1).join(', ')} and ${clauses[clauses.length - 1]}.${fragileNote}${unstableNote}${leftOutNote}`,
  };
}

/** How many of the pairs the headline names as generalising or depending on the model are fragile, in one sentence. */
function fragileSentence(firm: readonly PairMeta[], fragile: number): string {
  const why = (k: number) => `${k === 1 ? 'it holds' : 'they hold'} under fewer than half of the analysis choices`;
  if (firm.length === 1) {
    const what = firm[0].verdict === 'generalises' ? 'generalises' : 'depends on the model';
    return fragile === 1 ? ` The pair that ${what} is fragile (${why(1)}).`
      : ` The pair that ${what} is not fragile (it holds under at least half of the analysis choices).`;
  }
  const of = `of the ${firm.length} pairs that generalise or depend on the model`;
  return fragile === 0 ? ` None ${of} is fragile (each holds under at least half of the analysis choices).`
    : ` ${fragile} ${of} ${fragile === 1 ? 'is' : 'are'} fragile (${why(fragile)}).`;
}

/** " (holds under 2 of 8: fragile)" beside a pair the headline names; nothing without robustness. */
function holdsText(r: PairRobustness | undefined): string {
  return r === undefined || r.of === 0 ? '' : ` (holds under ${r.holds} of ${r.of}${r.fragile ? ': fragile' : ''})`;
}

function namesOf(names: readonly string[]): string {
  return names.length <= 6 ? names.join(', ') : `${names.slice(0, 6).join(', ')}, ...`;
}

function corrected(ctx: Pick<VerdictContext, 'correction' | 'pairs'>): string {
  return ctx.correction === 'none' || ctx.pairs <= 1 ? 'uncorrected' : `${ctx.correction}-adjusted`;
}

function pval(p: number | null): string {
  return p === null ? '-' : pValueText(p);
}
