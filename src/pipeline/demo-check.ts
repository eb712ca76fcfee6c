// The demo's last step: the analysis of a study run on the synthetic suite, compared with the
// correlation signs the suite was built with (suite.json's expectedCorrelations; the comparison
// and its verdict are synth/design-check.ts, shared with the report).
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisResult } from '../analyze/analysis.ts';
import { checkDesign, type DesignCheck, type ExpectedCorrelation, type SuiteDescription } from '../synth/index.ts';

/** The designed signs of a suite folder written by writeSuite. */
export function suiteDesign(suiteDir: string): ExpectedCorrelation[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(suiteDir, 'suite.json'), 'utf8')) as SuiteDescription;
  return manifest.expectedCorrelations;
}

export function checkAgainstDesign(analysis: AnalysisResult, suiteDir: string): DesignCheck {
  return checkDesign(suiteDesign(suiteDir), analysis.agreement);
}
