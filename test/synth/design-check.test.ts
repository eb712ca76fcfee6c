import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDesign, formatDesignCheck, inMostRuns, type ExpectedCorrelation, type FoundSigns } from '../../src/synth/index.ts';

const design: ExpectedCorrelation[] = [
  { a: 'c', b: 'c-long', sign: 'positive', why: 'shared items' },
  { a: 'c', b: 'broken', sign: 'negative', why: 'mirror' },
  { a: 'broken', b: 'c-long', sign: 'negative', why: 'mirror of shared items' },
  { a: 'broken', b: 'other', sign: 'none', why: 'no shared designed cue' },
  { a: 'c', b: 'other', sign: 'none', why: 'no shared designed cue' },
  { a: 'c-long', b: 'other', sign: 'none', why: 'no shared designed cue' },
];
// analyze writes a and b in alphabetical order; the design may list them the other way round.
const found = (rows: [string, string, number, number][], runs = 3): FoundSigns[] =>
  rows.map(([a, b, positive, negative]) => ({ a, b, positive, negative, runs }));

test('most runs means more than half: 2 of 3, 1 of 1, 2 of 2, not 1 of 2', () => {
  assert.deepEqual([inMostRuns(2, 3), inMostRuns(1, 3), inMostRuns(1, 1), inMostRuns(2, 2), inMostRuns(1, 2), inMostRuns(0, 0)],
    [true, false, true, true, false, false]);
});

test('recovered: every designed pair with its sign in most runs and never the other, spurious pairs within the allowance', () => {
  const c = checkDesign(design, found([
    ['broken', 'c', 0, 2], ['broken', 'c-long', 0, 3], ['c', 'c-long', 3, 0],
    ['broken', 'other', 2, 0], ['c', 'other', 1, 0], ['c-long', 'other', 0, 0],
  ]));
  assert.equal(c.passed, true);
  assert.deepEqual([c.designed, c.recovered, c.undesigned, c.spurious, c.runs], [3, 3, 3, 1, 3]);
  assert.deepEqual(c.rows.map((r) => r.outcome), ['recovered', 'recovered', 'recovered', 'spurious', 'quiet', 'quiet']);
  assert.equal(c.verdict, 'Recovered: 3 of 3 designed pairs significant with their designed sign in most of the 3 runs and never with the other; 1 ' +
    'of 3 pairs with no designed relation significant in most of the 3 runs (at most 2 allowed).');
  const text = formatDesignCheck(c);
  assert.match(text, /^ {2}broken +c +negative +0 +2 +3 +recovered$/m);
  assert.match(text, /\nVerdict: Recovered: /);
});

test('one run with the other sign fails a pair even when most runs have the designed sign', () => {
  const c = checkDesign(design, found([
    ['broken', 'c', 1, 2], ['broken', 'c-long', 0, 3], ['c', 'c-long', 3, 0],
  ]));
  assert.equal(c.passed, false);
  assert.equal(c.rows.find((r) => r.a === 'broken' && r.b === 'c')!.outcome, 'wrong sign');
  assert.match(c.verdict, /^Not recovered: 2 of 3 designed pairs .*\(broken \/ c has the wrong sign\)\.$/);
});

test('a designed pair in only 1 of 3 runs is missed; too many spurious pairs fail the check', () => {
  const missed = checkDesign(design, found([['broken', 'c', 0, 1], ['broken', 'c-long', 0, 3], ['c', 'c-long', 2, 0]]));
  assert.equal(missed.passed, false);
  assert.match(missed.verdict, /broken \/ c is missed/);
  const noisy = checkDesign(design, found([
    ['broken', 'c', 0, 3], ['broken', 'c-long', 0, 3], ['c', 'c-long', 3, 0],
    ['broken', 'other', 2, 0], ['c', 'other', 0, 2], ['c-long', 'other', 1, 1],
  ]));
  assert.equal(noisy.spurious, 3);
  assert.equal(noisy.passed, false);
  assert.match(noisy.verdict,
    /^Not recovered: 3 of 3 designed pairs .*; 3 of 3 pairs with no designed relation significant in most of the 3 runs \(at most 2 allowed\)\.$/);
  assert.equal(checkDesign(design, found([['broken', 'c', 0, 3], ['broken', 'c-long', 0, 3], ['c', 'c-long', 3, 0], ['broken', 'other', 2, 0],
    ['c', 'other', 0, 2], ['c-long', 'other', 1, 1]]), 3).passed, true);
});

test('pairs of sets the analysis left out are not held against it; nothing analysed is "not checked"', () => {
  const subset = checkDesign(design, found([['c', 'c-long', 1, 0]], 1));
  assert.equal(subset.passed, true);
  assert.equal(subset.designed, 1);
  assert.match(subset.verdict, /^Recovered: 1 of 1 designed pairs significant with their designed sign in the run/);
  assert.equal(checkDesign(design, []).verdict, 'Not checked: no run was analysed.');
  assert.equal(checkDesign(design, found([['c', 'other', 0, 0]])).verdict,
    'Not checked: the analysed test sets hold no pair with a designed relation.');
});
