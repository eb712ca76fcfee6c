// Compares a demo analysis with the synthetic suite's design: for each OOD pair the suite says
// which sign its partial correlation should have (shared cue, same relation: positive; shared cue,
// opposite relations: negative; otherwise none), and the analysis says what the runs showed.
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisResult } from '../analyze/analysis.ts';
import type { SuiteDescription } from '../synth/index.ts';

export interface DesignCheck { a: string; b: string; designed: 'positive' | 'negative' | 'none'; positive: number; negative: number; runs: number }

export function checkAgainstDesign(analysis: AnalysisResult, suiteDir: string): DesignCheck[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(suiteDir, 'suite.json'), 'utf8')) as SuiteDescription;
  const designed = new Map(manifest.expectedCorrelations.map((e) => [[e.a, e.b].sort().join('\u0000'), e.sign]));
  return analysis.agreement.map((g) => ({
    a: g.a, b: g.b, designed: designed.get([g.a, g.b].sort().join('\u0000')) ?? 'none', positive: g.positive, negative: g.negative, runs: g.runs,
  }));
}

export function describeDesignCheck(checks: readonly DesignCheck[]): string {
  const withSign = checks.filter((c) => c.designed !== 'none');
  const lines = withSign.map((c) => {
    const agreeing = c.designed === 'positive' ? c.positive : c.negative;
    return `  ${c.a} / ${c.b}: designed ${c.designed}; significant with that sign in ${agreeing} of ${c.runs} runs` +
      `${(c.designed === 'positive' ? c.negative : c.positive) ? `, with the other sign in ${c.designed === 'positive' ? c.negative : c.positive}` : ''}`;
  });
  const spurious = checks.filter((c) => c.designed === 'none' && c.positive + c.negative > 0).length;
  return [
    `The suite was built so that OOD sets sharing a cue move together once ID accuracy is regressed out (${withSign.length} designed pairs):`,
    ...lines,
    `${spurious} of ${checks.length - withSign.length} pairs with no designed relation were significant in at least one run.`,
  ].join('\n') + '\n';
}
