// Robustness of each verdict: the same pairs, same runs, same inference and correction, under each
// of the analysis choices a reader could reasonably have made instead: Pearson or Spearman, a
// linear or a spline residualiser, levels or first differences (2 x 2 x 2 = 8). A pair's verdict
// "holds under k of m" when k of the m choices that could be computed give it the same verdict
// (verdict.ts: the meta-analysis across runs, unstable runs flagged and left out as in the main
// analysis) as the main analysis. A choice that cannot be computed for some run (the spline
// needs 12 checkpoints) is listed with its reason and not counted in m.
import { adjustPValues } from '../stats/index.ts';
import type { AnalyzeOptions, PairResult } from './analysis.ts';
import { metaAcrossRuns, type MetaAcrossRuns } from './pair-meta.ts';
import { testPairs, type PairTestOptions } from './pair-tests.ts';
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
  /** The available choices giving another verdict, as "spearman/spline/differences: inconclusive". */
  otherwise: string[];
}

export interface Robustness { choices: RobustnessChoice[]; pairs: PairRobustness[] }

/** Each run's control and OOD series (levels), as analyzeRun selected them. */
export interface RunData { run: string; steps: readonly number[]; control: Float64Array; ood: Record<string, Float64Array> }

const MIN_STEPS = { linear: 5, spline: 12 } as const;

export function robustnessOf(runs: readonly RunData[], main: MetaAcrossRuns, opts: AnalyzeOptions): Robustness {
  const choices: RobustnessChoice[] = [];
  const verdicts: Map<string, PairVerdict>[] = [];
  for (const method of ['pearson', 'spearman'] as const) {
    for (const residualiser of ['linear', 'spline'] as const) {
      for (const representation of ['levels', 'differences'] as const) {
        const choice: RobustnessChoice = { method, residualiser, representation, available: true };
        choices.push(choice);
        const short = runs.find((r) => r.control.length - (representation === 'differences' ? 1 : 0) < MIN_STEPS[residualiser]);
        if (short) {
          choice.available = false;
          choice.reason = `run "${short.run}" has too few ${representation === 'differences' ? 'differences' : 'checkpoints'} ` +
            `for the ${residualiser} residualiser (needs ${MIN_STEPS[residualiser]})`;
          verdicts.push(new Map());
          continue;
        }
        const testOpts: PairTestOptions = { method, residualiser, inference: opts.inference, representation };
        const analysed = runs.map((r) => {
          const pairs = testPairs(r.ood, r.control, testOpts, r.steps);
          const stability = runStability({ control: r.control, ood: r.ood, steps: r.steps, controlName: opts.control },
            { ...opts, method, residualiser });
          const adjusted = adjustPValues(pairs.map((p) => p.result.p), opts.correction);
          return {
            run: r.run,
            pairs: pairs.map(({ a, b, result, representation }, i): PairResult => {
              const pair: PairResult = { a, b, r: result.r, nEff: result.nEff, df: result.df, p: result.p, p_adjusted: adjusted[i],
                ci95: result.ci95, representation };
              const unstable = stability(a, b, { ...result, representation });
              if (unstable !== undefined) pair.unstable = unstable;
              return pair;
            }),
          };
        });
        const meta = metaAcrossRuns(analysed, { ...opts, moderator: undefined });
        verdicts.push(new Map(meta.pairs.map((p) => [`${p.a}\u0000${p.b}`, p.verdict])));
      }
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
    return { a: g.a, b: g.b, verdict, holds, of, otherwise };
  });
  return { choices, pairs };
}
