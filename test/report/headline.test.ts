// The report's first screen shows the analysis's headline (analysis.headline, analyze/verdict.ts):
// the same sentence `analyze` prints last; never a "Yes" for pairs that are merely not significant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_OPTIONS, emptyAnalysis, type RunAnalysis } from '../../src/analyze/analysis.ts';
import { agreementAcrossRuns } from '../../src/analyze/agreement.ts';
import { metaAcrossRuns } from '../../src/analyze/pair-meta.ts';
import { headlineOf } from '../../src/analyze/headline.ts';
import { studyAHeadline } from '../../src/report/study-a-section.ts';
import type { StudyA } from '../../src/report/study-a.ts';

const options = { ...DEFAULT_OPTIONS, control: 'id' };
function studyA(runs: RunAnalysis[]): StudyA {
  const meta = metaAcrossRuns(runs, options);
  return { control: 'id', metric: 'accuracy', options, analysis: { headline: headlineOf({ runs, meta }, options), runs, left_out: [],
    agreement: agreementAcrossRuns(runs, 0.05), meta }, series: [], skipped: [] };
}
const run = (name: string, xz: number): RunAnalysis => ({
  run: name, n: 10, control: 'id', distinct: 10,
  pairs: [{ a: 'x', b: 'y', r: 0.9, n_eff: 10, df: 7, p: 0.001, p_adjusted: 0.003, ci95: [0.5, 0.98], representation: 'levels' },
    { a: 'x', b: 'z', r: xz, n_eff: 10, df: 7, p: 0.8, p_adjusted: 0.8, ci95: [-0.5, 0.6], representation: 'levels' }],
});

test('the first screen says the headline of the analysis; a pair significant in no run is inconclusive, not a Yes', () => {
  const a = studyA([run('r1', 0.1), run('r2', -0.05), run('r3', 0.02)]);
  const sentence = studyAHeadline(a);
  assert.equal(sentence, a.analysis.headline.sentence);
  assert.doesNotMatch(sentence, /\b(Yes|Partly|No)\b/);
  assert.match(sentence, new RegExp(/^Across 3 runs, of 2 pairs of OOD test sets .*: 1 generalises \(x–y \+\), 0 depend on the model, /.source +
    /0 are negligible everywhere \(\|r\| < 0\.1\) and 1 is inconclusive \(with 3 runs the prediction interval for a new run is wide, /.source +
    /t\(1\) = 12\.7: plan 5 or more\)\.$/.source));
});

test('with one run, the sentence says nothing is judged across runs and counts its significant pairs', () => {
  assert.equal(studyAHeadline(studyA([run('r1', 0.1)])),
    'Only one run could be analysed, so no pair can be judged across runs (all 2 inconclusive): in it, 1 of 2 pairs of OOD test sets are ' +
      'significantly correlated (adjusted p < 0.05).');
  assert.equal(studyAHeadline({ ...studyA([]), analysis: emptyAnalysis(options) }), 'No run could be analysed.');
});
