// The demo's last step: the analysis of a study run on the synthetic suite, compared with what the
// suite was built with (suite.json's expectedCorrelations; the comparison and its wording are
// synth/design-check.ts, shared with the report). A pair counts as found with a sign only when its
// one verdict across runs (analyze/verdict.ts) is "generalises", so the check, the headline and
// the report name the same pairs; a pair designed to depend on the training variant must be found
// to depend on the model, and no run may be significant with the sign designed for the other
// variant (each run's variant is the study's training set: data synthetic:<variant>). The per-run
// sign counts ride along as the papers' view.
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisResult } from '../analyze/analysis.ts';
import { isSignificant } from '../analyze/agreement.ts';
import type { RunPlan } from '../config/expand.ts';
import { checkDesign, MAX_SPURIOUS_PAIRS, type DesignCheck, type ExpectedCorrelation, type FoundSigns,
  type SuiteDescription } from '../synth/index.ts';

/** The designed relations of a suite folder written by writeSuite. */
export function suiteDesign(suiteDir: string): ExpectedCorrelation[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(suiteDir, 'suite.json'), 'utf8')) as SuiteDescription;
  return manifest.expectedCorrelations;
}

/** Per pair: the papers' sign counts with the verdict and the sign it establishes, and each stable run's significant sign. */
export function foundByVerdict(analysis: Pick<AnalysisResult, 'agreement' | 'meta'> & Partial<Pick<AnalysisResult, 'runs'>>,
  alpha = 0.05): FoundSigns[] {
  const verdicts = new Map(analysis.meta.pairs.map((p) => [`${p.a}\u0000${p.b}`, p]));
  return analysis.agreement.map((g) => {
    const m = verdicts.get(`${g.a}\u0000${g.b}`);
    const found = m?.verdict === 'generalises' && m.r !== null ? (m.r > 0 ? 'positive' : 'negative') : 'none';
    const byRun: Record<string, 'positive' | 'negative' | null> = {};
    for (const run of analysis.runs ?? []) {
      const p = run.pairs.find((x) => x.a === g.a && x.b === g.b);
      if (!p || p.unstable) continue;
      byRun[run.run] = isSignificant(p, alpha) ? (p.r! > 0 ? 'positive' : 'negative') : null;
    }
    return { a: g.a, b: g.b, positive: g.positive, negative: g.negative, runs: g.runs, verdict: m?.verdict ?? 'inconclusive', found, byRun };
  });
}

/** Each run's training variant: the <variant> of a training set's data "synthetic:<variant>" (the first variant for plain "synthetic"). */
export function trainingVariants(runs: readonly Pick<RunPlan, 'id' | 'trainingSet'>[], firstVariant = 'a'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of runs) {
    const data = r.trainingSet.data;
    if (data === 'synthetic') out[r.id] = firstVariant;
    else if (data.startsWith('synthetic:')) out[r.id] = data.slice('synthetic:'.length);
  }
  return out;
}

export function checkAgainstDesign(analysis: AnalysisResult, suiteDir: string,
  o: { runs?: readonly Pick<RunPlan, 'id' | 'trainingSet'>[]; alpha?: number } = {}): DesignCheck {
  return checkDesign(suiteDesign(suiteDir), foundByVerdict(analysis, o.alpha), MAX_SPURIOUS_PAIRS, trainingVariants(o.runs ?? []));
}
