import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cueClassifiers, describeSuite, generateSuite } from '../../src/synth/index.ts';

const suite = generateSuite({ seed: 2, trainSize: 400, testSize: 200 });
const desc = describeSuite(suite);

test('describeSuite lists every set with its cue, relation and designed rates', () => {
  assert.equal(desc.sets.length, suite.testSets.length);
  const byId = Object.fromEntries(desc.sets.map((s) => [s.id, s]));
  assert.deepEqual([byId['overlap-consistent'].cue, byId['overlap-consistent'].relation], ['overlap', 'consistent']);
  assert.deepEqual([byId['negation-consistent-renamed'].cue, byId['negation-consistent-renamed'].relation], ['negation', 'consistent']);
  assert.deepEqual([byId['overlap-broken'].cue, byId['overlap-broken'].relation], ['overlap', 'broken']);
  assert.deepEqual([byId['negation-broken'].cue, byId['negation-broken'].relation], ['negation', 'broken']);
  assert.deepEqual([byId['vocabulary-shift'].cue, byId['vocabulary-shift'].vocabulary], ['negation', 'held-out']);
  assert.equal(byId['in-domain'].role, 'id');
  assert.equal(desc.train.size, 400);
  assert.deepEqual(desc.labels, ['Yes', 'No']);
  assert.equal(JSON.stringify(JSON.parse(JSON.stringify(desc))), JSON.stringify(desc));
});

test('designed cue-only accuracies match the examples', () => {
  for (const s of desc.sets) {
    const examples = suite.testSets.find((t) => t.id === s.id)!.examples;
    for (const cue of ['overlap', 'negation'] as const) {
      const measured = examples.filter((e) => cueClassifiers[cue](e.fields.premise, e.fields.hypothesis) === e.label).length / examples.length;
      assert.ok(Math.abs(measured - s.cueOnlyAccuracy[cue]) <= 1 / examples.length, `${s.id} ${cue}: ${measured} vs ${s.cueOnlyAccuracy[cue]}`);
    }
  }
});

test('expected correlations come from construction: a mirror negative, a twin positive, two sets of one source their product, otherwise none', () => {
  const find = (a: string, b: string) => desc.expectedCorrelations.find((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a))!;
  const sign = (a: string, b: string) => find(a, b).sign;
  assert.equal(sign('negation-consistent-renamed', 'negation-consistent'), 'positive');
  assert.equal(sign('negation-consistent', 'negation-broken'), 'negative');
  assert.equal(sign('negation-consistent-renamed', 'negation-broken'), 'negative');
  assert.equal(sign('vocabulary-shift', 'negation-consistent-renamed'), 'positive');
  assert.equal(sign('vocabulary-shift', 'negation-broken'), 'negative');
  // same cue, opposite relation, but built independently: the cue theory is a hypothesis, not a design
  assert.equal(sign('overlap-consistent', 'overlap-broken'), 'none');
  assert.match(find('overlap-consistent', 'overlap-broken').why,
    /no construction ties them; a model leaning on the overlap cue would move them apart/);
  assert.equal(sign('overlap-broken', 'negation-broken'), 'none');
  assert.equal(sign('overlap-consistent', 'negation-consistent'), 'none');
  const n = desc.sets.filter((s) => s.role === 'ood').length;
  assert.equal(desc.expectedCorrelations.length, (n * (n - 1)) / 2);
  assert.ok(desc.expectedCorrelations.every((c) => c.a !== 'in-domain' && c.b !== 'in-domain'));
});
