// The synthetic suite has one set of defaults (synth/design.ts SUITE_DEFAULTS): `--test-set
// synthetic` without a seed or size is the test sets of the suite that `train --data synthetic`
// and a study file's `synthetic: {}` train on, so none of its examples is a training example.
// Before, evaluation's default seed was 0 and 16 of its 1400 examples were training examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveTestSetArg } from '../../src/evaluate/index.ts';
import { generateSuite, SUITE_DEFAULTS } from '../../src/synth/index.ts';
import { SyntheticSchema } from '../../src/config/schema.ts';

test('--test-set synthetic, train --data synthetic and a study file share the suite defaults, and its test sets hold no ' +
  'training example', async () => {
  assert.deepEqual(SyntheticSchema.parse({}), SUITE_DEFAULTS);
  const suite = generateSuite(SUITE_DEFAULTS);
  const sets = await resolveTestSetArg('synthetic');
  assert.deepEqual(sets.map((s) => s.id), suite.testSets.map((s) => s.id));
  const key = (fields: Record<string, string>) => `${fields.premise}\t${fields.hypothesis}`;
  const training = new Set(suite.train.map((e) => key(e.fields)));
  assert.equal(training.size, SUITE_DEFAULTS.trainSize);
  let checked = 0;
  for (const set of sets) {
    assert.equal(set.examples.length, SUITE_DEFAULTS.testSize, set.id);
    assert.deepEqual(set.examples, suite.testSets.find((s) => s.id === set.id)!.examples, `${set.id}: not the default suite's set`);
    for (const e of set.examples) {
      assert.ok(!training.has(key(e.fields)), `${set.id} ${e.id} is a training example of the default suite`);
      checked++;
    }
  }
  assert.equal(checked, SUITE_DEFAULTS.testSize * suite.testSets.length);
});
