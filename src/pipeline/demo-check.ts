// The demo's last step: the analysis of a study run on the synthetic suite, compared with the
// correlation signs the suite was built with (suite.json's expectedCorrelations; the comparison
// and its wording are synth/design-check.ts, shared with the report). A pair counts as found with
// a sign only when its one verdict across runs (analyze/verdict.ts) is "generalises", so the
// check, the headline and the report name the same pairs; the per-run sign counts ride along as
// the papers' view.
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisResult } from '../analyze/analysis.ts';
import { checkDesign, type DesignCheck, type ExpectedCorrelation, type FoundSigns, type SuiteDescription } from '../synth/index.ts';

/** The designed signs of a suite folder written by writeSuite. */
export function suiteDesign(suiteDir: string): ExpectedCorrelation[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(suiteDir, 'suite.json'), 'utf8')) as SuiteDescription;
  return manifest.expectedCorrelations;
}

/** Per pair: the papers' sign counts with the verdict and the sign it establishes. */
export function foundByVerdict(analysis: Pick<AnalysisResult, 'agreement' | 'meta'>): FoundSigns[] {
  const verdicts = new Map(analysis.meta.pairs.map((p) => [`${p.a}\u0000${p.b}`, p]));
  return analysis.agreement.map((g) => {
    const m = verdicts.get(`${g.a}\u0000${g.b}`);
    const found = m?.verdict === 'generalises' && m.r !== null ? (m.r > 0 ? 'positive' : 'negative') : 'none';
    return { a: g.a, b: g.b, positive: g.positive, negative: g.negative, runs: g.runs, verdict: m?.verdict ?? 'inconclusive', found };
  });
}

export function checkAgainstDesign(analysis: AnalysisResult, suiteDir: string): DesignCheck {
  return checkDesign(suiteDesign(suiteDir), foundByVerdict(analysis));
}
