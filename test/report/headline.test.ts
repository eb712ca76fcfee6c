import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_OPTIONS, type Agreement, type RunAnalysis } from '../../src/analyze/analysis.ts';
import { metaAcrossRuns } from '../../src/analyze/pair-meta.ts';
import { studyAHeadline } from '../../src/report/study-a-section.ts';
import type { StudyA } from '../../src/report/study-a.ts';

function studyA(agreement: Agreement[], runs: RunAnalysis[]): StudyA {
  return { control: 'id', metric: 'accuracy', options: { ...DEFAULT_OPTIONS, control: 'id' }, analysis: { runs, agreement, meta: metaAcrossRuns(runs, DEFAULT_OPTIONS) }, series: [], skipped: [] };
}
const run = (name: string): RunAnalysis => ({
  run: name, n: 10, control: 'id', distinct: 10,
  pairs: [{ a: 'x', b: 'y', r: 0.9, nEff: 10, df: 7, p: 0.001, p_adjusted: 0.003, ci95: [0.5, 0.98], representation: 'levels' }, { a: 'x', b: 'z', r: 0.1, nEff: 10, df: 7, p: 0.8, p_adjusted: 0.8, ci95: [-0.5, 0.6], representation: 'levels' }],
});
const pair = (a: string, b: string, positive: number, negative: number, runs: number): Agreement => ({ a, b, positive, negative, null: runs - positive - negative, runs });

test('the answer is No when some pair changes sign, Partly when some is significant in some runs only, else Yes', () => {
  const runs = [run('r1'), run('r2'), run('r3')];
  assert.equal(studyAHeadline(studyA([pair('x', 'y', 3, 0, 3), pair('x', 'z', 1, 2, 3), pair('y', 'z', 0, 0, 3)], runs)),
    'No: across 3 runs, 1 of 3 pairs of OOD test sets keep the same significant sign in every run, 1 change sign between runs and 1 is significant in none (partial correlations with "id" regressed out, adjusted p < 0.05).');
  assert.match(studyAHeadline(studyA([pair('x', 'y', 3, 0, 3), pair('x', 'z', 2, 0, 3)], runs)),
    /^Partly: across 3 runs, 1 of 2 pairs of OOD test sets keep the same significant sign in every run and 1 is significant in some runs only \(/);
  assert.match(studyAHeadline(studyA([pair('x', 'y', 0, 3, 3), pair('x', 'z', 0, 0, 3)], runs)),
    /^Yes: across 3 runs, 1 of 2 pairs of OOD test sets keep the same significant sign in every run and 1 is significant in none \(/);
});

test('with one run, the sentence says agreement is not tested and counts its significant pairs', () => {
  assert.equal(studyAHeadline(studyA([pair('x', 'y', 1, 0, 1), pair('x', 'z', 0, 0, 1)], [run('r1')])),
    'Only one run could be analysed, so agreement across runs is not tested: in it, 1 of 2 pairs of OOD test sets are significantly correlated (adjusted p < 0.05).');
});
