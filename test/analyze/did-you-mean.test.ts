// A mistyped control, test set, metric or prompt variant is an error that says which name was
// probably meant before listing every name the input has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { closestName } from '../../src/closest-name.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

test('closestName: case, - and _ first, then a few edits; nothing when no name is close', () => {
  const known = ['in-domain', 'negation-broken', 'negation-consistent', 'arc_easy', 'arc_challenge', 'hellaswag'];
  assert.equal(closestName('In-Domain', known), 'in-domain');
  assert.equal(closestName('arc-easy', known), 'arc_easy');
  assert.equal(closestName('negation-brokn', known), 'negation-broken');
  assert.equal(closestName('helaswag', known), 'hellaswag');
  assert.equal(closestName('lambada', known), undefined);
  assert.equal(closestName('x', known), undefined);
});

test('analyze: a mistyped --control, --test-set and --metric say "did you mean"', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 's.csv');
  writeCsv(file, simulateScores({ seed: 1, runs: 1, steps: 12 }));
  const cases: [string[], RegExp][] = [
    [['--control', 'In-domain'], /no scores for the control test set "In-domain" \(did you mean "in-domain"\? it has: /],
    [['--control', 'in-domain', '--test-set', 'negation-brokn', 'overlap-broken'],
      /has no scores for "negation-brokn" \(did you mean "negation-broken"\? it has: /],
    [['--control', 'in-domain', '--metric', 'acuracy'], /no scores for metric "acuracy" \(did you mean "accuracy"\? it has: accuracy\)/],
  ];
  for (const [args, expected] of cases) {
    const r = await genstudy(['analyze', file, ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, expected);
  }
});
