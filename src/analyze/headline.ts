// The headline: the answer to "do generalisation results generalise?" in one sentence, counting
// the pairs' verdicts (verdict.ts) and naming them when few, with how robust each is
// (robustness.ts), the unstable run results left out of the pooling and the runs left out.
// It is AnalysisResult.headline: what analyze prints last, the demo prints and the report shows first.
import { isSignificant } from './agreement.ts';
import type { MetaAcrossRuns, PairMeta } from './pair-meta.ts';
import type { PairRobustness, Robustness } from './robustness.ts';
import type { LeftOutRun, RunAnalysis } from './run-result.ts';
import { regressorLabel, type Regressor } from './regressor.ts';
import { PAIR_VERDICTS, type PairVerdict } from './verdict.ts';
import { predictionQuantile } from '../stats/index.ts';

export interface Headline {
  /** Runs analysed. */
  runs: number;
  /** Pairs of OOD test sets judged. */
  pairs: number;
  /** How many pairs have each verdict. */
  counts: Record<PairVerdict, number>;
  /** Run results left out of the pooling as unstable (0 with --keep-unstable: then they are pooled). */
  unstable_left_out: number;
  /** Runs left out of the whole analysis with too few checkpoints (AnalysisResult.leftOut). */
  runs_left_out: number;
  /**
   * With robustness on: of the pairs that generalise or depend on the model, those whose verdict holds under fewer than half
   * of the analysis choices (robustness.ts). Absent with robustness off.
   */
  fragile?: number;
  /**
   * Set when a pair depends on the model and a run's control carries sampling noise (corrected or
   * warned about): on a fixed in-domain test set that verdict is unconfirmed (the sentence says why).
   */
  noisy_control_caveat?: true;
  /** The answer in one sentence: what analyze prints last, the demo prints and the report shows first. */
  sentence: string;
}

/**
 * Measured on simulated runs whose in-domain scores come from the same examples at every
 * checkpoint (bench/realistic.ts, fixed test sets, docs/analyze.md): the control's correction
 * assumes independent errors, and some pair of 28 null pairs was called *depends on the model* in
 * 48-59% of 5-model studies, 3.0% of pairs (0.5% with independent errors).
 */
const NOISY_CONTROL_CAVEAT = ' Caveat: the control is a score measured with sampling noise, and its correction treats each checkpoint\'s ' +
  'error as independent; on a fixed in-domain test set (the same examples at every checkpoint) the errors persist, and in simulation ' +
  'some null pair was then called "depends on the model" in about half of studies of 28 pairs: read that verdict as unconfirmed, ' +
  'or give the control\'s per-example results (a genstudy store, lm-eval\'s --log_samples files, --example-results), from which their covariance ' +
  'is estimated (docs/analyze.md, "fixed test sets").';

/** The answer to "do generalisation results generalise?", counting the four verdicts. */
export function headlineOf(
  result: {
    runs: readonly Pick<RunAnalysis, 'pairs' | 'control_noise'>[]; meta: MetaAcrossRuns; robustness?: Robustness; left_out?: readonly LeftOutRun[];
  },
  ctx: { control: string; regressOn: Regressor; alpha: number; equivalenceMargin: number; keepUnstable: boolean },
): Headline {
  const runs = result.runs.length;
  const pairs = result.meta.pairs;
  const counts = Object.fromEntries(PAIR_VERDICTS.map((v) => [v, pairs.filter((p) => p.verdict === v).length])) as Record<PairVerdict, number>;
  const unstable = pairs.reduce((t, p) => t + p.unstable.length, 0);
  const unstableLeftOut = ctx.keepUnstable ? 0 : unstable;
  const leftOut = result.left_out ?? [];
  const robustness = result.robustness && new Map(result.robustness.pairs.map((p) => [`${p.a}\u0000${p.b}`, p]));
  const robustnessOf = (p: PairMeta) => robustness?.get(`${p.a}\u0000${p.b}`);
  const firm = pairs.filter((p) => p.verdict === 'generalises' || p.verdict === 'depends on the model');
  const fragile = firm.filter((p) => robustnessOf(p)?.fragile).length;
  const base = {
    runs, pairs: pairs.length, counts, unstable_left_out: unstableLeftOut, runs_left_out: leftOut.length, ...(robustness ? { fragile } : {}),
  };
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
    `${n.inconclusive} ${n.inconclusive === 1 ? 'is' : 'are'} inconclusive${fewRunsNote(runs, n.inconclusive)}`,
  ];
  const fragileNote = !robustness || firm.length === 0 ? '' : fragileSentence(firm, fragile);
  const caveat = n['depends on the model'] > 0 && result.runs.some((r) => noisyControl(r.control_noise));
  return {
    ...base, ...(caveat ? { noisy_control_caveat: true as const } : {}),
    sentence: `Across ${runs} runs, of ${pairs.length} pairs of OOD test sets (partial correlations with ${regressorLabel(ctx)} regressed out, ` +
      `pooled over runs): ${clauses.slice(0, -1).join(', ')} and ${clauses[clauses.length - 1]}.${fragileNote}${unstableNote}${leftOutNote}` +
      (caveat ? NOISY_CONTROL_CAVEAT : ''),
  };
}

/**
 * Why few runs leave pairs inconclusive. With 3 runs the prediction interval's quantile is t(1)'s
 * (stats/meta-analysis.ts), and a common effect of 0.3 was called *generalises* in 4.5-9.0% of
 * simulated 3-run studies against 50.5-73.5% with 5 (scripts/verdict-calibration.ts, docs/analyze.md).
 */
function fewRunsNote(runs: number, inconclusive: number): string {
  if (inconclusive === 0) return '';
  if (runs < 3) return ' (a prediction interval needs at least 3 runs)';
  return runs === 3 ? ` (with 3 runs the prediction interval for a new run is wide, t(1) = ${predictionQuantile(3).toFixed(1)}: plan 5 or more)` : '';
}

/**
 * Whether a run's control carries sampling noise whose errors the correction took as independent:
 * known noise (corrected, or not under Spearman) or a proportion whose noise is not known; not when
 * the errors' covariance across checkpoints was known, and a stated variance of 0 gives reliability 1.
 */
function noisyControl(c: RunAnalysis['control_noise']): boolean {
  return c !== undefined && !c.error_covariance && !(c.reliability !== undefined && c.reliability >= 1);
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
