// Robustness of each verdict: the same pairs, same runs, same inference and correction, under each
// of the analysis choices a reader could reasonably have made instead: Pearson or Spearman, a
// linear or a spline residualiser, levels or first differences (2 x 2 x 2 = 8). A pair's verdict
// "holds under k of m" when k of the m choices that could be computed give it the same verdict
// (verdict.ts: the meta-analysis across runs, unstable runs flagged and left out as in the main
// analysis) as the main analysis. The main analysis's own choice is one of the 8 (with the default
// representation 'auto', per pair levels or differences), so m counts it too. A choice that cannot
// be computed for some run (the spline needs 12 checkpoints) is listed with its reason and not
// counted in m. A verdict that holds under fewer than half of the m is fragile: which word a pair
// gets is then more a property of the analysis than of the runs, and every output says so.
import { adjustPValues, NoiseFitCache } from '../stats/index.ts';
import type { AnalyzeOptions } from './options.ts';
import type { PairResult } from './run-result.ts';
import { metaAcrossRuns, type MetaAcrossRuns, type PairMeta } from './pair-meta.ts';
import { MIN_STEPS, type PairTestContext, type PairTestOptions, type SamplingNoise } from './pair-test-contract.ts';
import { testPairs } from './pair-tests.ts';
import { runStability } from './stability.ts';
import type { PairVerdict } from './verdict.ts';

export interface RobustnessChoice {
  method: PairTestOptions['method'];
  residualiser: PairTestOptions['residualiser'];
  representation: 'levels' | 'differences';
  /** False when some run cannot be analysed this way; `reason` says why. */
  available: boolean;
  reason?: string;
}

export interface PairRobustness {
  a: string;
  b: string;
  /** The main analysis's verdict. */
  verdict: PairVerdict;
  /** Choices giving the same verdict, of the `of` available. */
  holds: number;
  of: number;
  /** The verdict holds under fewer than half of the `of` choices (false when none could be computed). */
  fragile: boolean;
  /** The available choices giving another verdict, as "spearman/spline/differences: inconclusive". */
  otherwise: string[];
}

export interface Robustness { choices: RobustnessChoice[]; pairs: PairRobustness[] }

/** Each run's control and OOD series (levels), as analyzeRun selected them. */
export interface RunData {
  run: string; steps: readonly number[]; control: Float64Array; ood: Record<string, Float64Array>;
  /** The scores' sampling variances, where known. */
  noise?: SamplingNoise;
}


/** The analysis choices robustnessOf recomputes every verdict under. */
const CHOICES = (['pearson', 'spearman'] as const).flatMap((method) => (['linear', 'spline'] as const).flatMap((residualiser) =>
  (['levels', 'differences'] as const).map((representation) => ({ method, residualiser, representation }))));
export const ROBUSTNESS_CHOICES = CHOICES.length;

/**
 * `tick`: called after each run under each choice (progress). The two representations of a method
 * and residualiser are computed run by run, sharing one cache of noise-model fits per run: the
 * differences' test fits the same level residuals as the levels' (a second fit of each series).
 */
export function robustnessOf(runs: readonly RunData[], main: MetaAcrossRuns, opts: AnalyzeOptions, tick?: () => void): Robustness {
  const choices: RobustnessChoice[] = CHOICES.map(({ method, residualiser, representation }) => {
    const short = runs.find((r) => r.control.length - (representation === 'differences' ? 1 : 0) < MIN_STEPS[residualiser]);
    if (!short) return { method, residualiser, representation, available: true };
    return {
      method, residualiser, representation, available: false,
      reason: `run "${short.run}" has too few ${representation === 'differences' ? 'differences' : 'checkpoints'} ` +
        `for the ${residualiser} residualiser (needs ${MIN_STEPS[residualiser]})`,
    };
  });
  const verdicts: Map<string, PairVerdict>[] = choices.map(() => new Map());
  const groups = [...new Set(choices.map((c) => `${c.method}/${c.residualiser}`))];
  for (const group of groups) {
    const members = choices.map((_, i) => i).filter((i) => `${choices[i].method}/${choices[i].residualiser}` === group);
    const analysed = new Map<number, { run: string; pairs: PairResult[] }[]>(members.map((i) => [i, []]));
    for (const r of runs) {
      const context: PairTestContext = { fits: new NoiseFitCache() };
      for (const i of members) {
        if (choices[i].available) analysed.get(i)!.push(analyseRun(r, choices[i], opts, context));
        tick?.();
      }
    }
    for (const i of members) {
      if (!choices[i].available) continue;
      const meta = metaAcrossRuns(analysed.get(i)!, { ...opts, moderator: undefined });
      verdicts[i] = new Map(meta.pairs.map((p) => [`${p.a}\u0000${p.b}`, p.verdict]));
    }
  }
  const pairs = main.pairs.map((g): PairRobustness => {
    const verdict = g.verdict;
    const key = `${g.a}\u0000${g.b}`;
    let holds = 0, of = 0;
    const otherwise: string[] = [];
    choices.forEach((c, i) => {
      if (!c.available) return;
      const v = verdicts[i].get(key);
      if (v === undefined) return;
      of++;
      if (v === verdict) holds++;
      else otherwise.push(`${c.method}/${c.residualiser}/${c.representation}: ${v}`);
    });
    return { a: g.a, b: g.b, verdict, holds, of, fragile: isFragile(holds, of), otherwise };
  });
  return { choices, pairs };
}

/** One run's pairs under one choice, as the main analysis reports them (stability flags and adjusted p included). */
function analyseRun(r: RunData, choice: RobustnessChoice, opts: AnalyzeOptions, context: PairTestContext): { run: string; pairs: PairResult[] } {
  const { method, residualiser, representation } = choice;
  const testOpts: PairTestOptions = { method, residualiser, inference: opts.inference, representation };
  const pairs = testPairs(r.ood, r.control, testOpts, r.steps, r.noise, context);
  const stability = runStability({ control: r.control, ood: r.ood, steps: r.steps, controlName: opts.control },
    { ...opts, method, residualiser });
  const adjusted = adjustPValues(pairs.map((p) => p.result.p), opts.correction);
  return {
    run: r.run,
    pairs: pairs.map(({ a, b, result, representation }, i): PairResult => {
      const pair: PairResult = { a, b, r: result.r, n_eff: result.n_eff, df: result.df, p: result.p, p_adjusted: adjusted[i],
        ci95: result.ci95, representation };
      const unstable = stability(a, b, { ...result, representation });
      if (unstable !== undefined) pair.unstable = unstable;
      return pair;
    }),
  };
}

/** Fewer than half of the choices that could be computed agree with the main analysis. */
export function isFragile(holds: number, of: number): boolean {
  return of > 0 && 2 * holds < of;
}

/** Each pair's robustness, also on its meta-analysis row (the verdict table, its CSV and the report read it there). */
export function markFragile(meta: MetaAcrossRuns, robustness: Robustness): void {
  const byPair = new Map(robustness.pairs.map((p) => [`${p.a}\u0000${p.b}`, p]));
  for (const p of meta.pairs) {
    const r = byPair.get(`${p.a}\u0000${p.b}`);
    if (r) Object.assign(p, { holds: r.holds, of: r.of, fragile: r.fragile } satisfies Pick<PairMeta, 'holds' | 'of' | 'fragile'>);
  }
}
