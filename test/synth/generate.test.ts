import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Example } from '../../src/types.ts';
import {
  cueClassifiers, generateSuite, HELD_OUT_NOUNS, highOverlap, hypothesisNegated, ID_NOUNS, parseSentence, trueLabel,
  CATEGORIES, type Suite,
} from '../../src/synth/index.ts';
import { UserError } from '../../src/errors.ts';

const opts = { seed: 11, trainSize: 1000, testSize: 400, idOverlapRate: 0.85, oodCueRate: 0.9 };
const suite: Suite = generateSuite(opts);
const allSets = (): { id: string; examples: Example[] }[] => [{ id: 'train', examples: suite.train }, ...suite.testSets];
const accuracy = (examples: Example[], f: (p: string, h: string) => string) =>
  examples.filter((e) => f(e.fields.premise, e.fields.hypothesis) === e.label).length / examples.length;

test('same seed gives the same suite; another seed a different one', () => {
  const again = generateSuite(opts);
  assert.equal(JSON.stringify(again), JSON.stringify(suite));
  const other = generateSuite({ ...opts, seed: 12 });
  assert.notEqual(JSON.stringify(other.train), JSON.stringify(suite.train));
  assert.notEqual(JSON.stringify(other.testSets), JSON.stringify(suite.testSets));
});

test('test-set size does not change the training set', () => {
  const bigger = generateSuite({ ...opts, testSize: 200 });
  assert.deepEqual(bigger.train, suite.train);
});

test('an ID train and test set and at least 5 OOD sets with known roles', () => {
  assert.equal(suite.train.length, 1000);
  assert.equal(suite.testSets.filter((s) => s.role === 'id').length, 1);
  const ood = suite.testSets.filter((s) => s.role === 'ood');
  assert.ok(ood.length >= 5);
  assert.ok(ood.filter((s) => s.cue === 'negation' && s.relation === 'consistent').length >= 2);
  assert.ok(ood.some((s) => s.cue === 'overlap' && s.relation === 'consistent'));
  assert.ok(ood.some((s) => s.relation === 'broken'));
  assert.ok(ood.some((s) => s.design.vocabulary === 'held-out'));
  for (const s of suite.testSets) assert.equal(s.examples.length, 400);
});

test('labels are balanced exactly in every set', () => {
  for (const s of allSets()) {
    const yes = s.examples.filter((e) => e.label === 'Yes').length;
    assert.equal(yes, s.examples.length / 2, s.id);
    assert.ok(s.examples.every((e) => e.label === 'Yes' || e.label === 'No'));
  }
});

test('every set has its designed cue rates (exact up to rounding of counts)', () => {
  const sets = [{ id: 'train', examples: suite.train, design: suite.testSets[0].design }, ...suite.testSets];
  for (const s of sets) {
    for (const label of ['Yes', 'No'] as const) {
      const group = s.examples.filter((e) => e.label === label);
      const high = group.filter((e) => highOverlap(e.fields.premise, e.fields.hypothesis)).length;
      const neg = group.filter((e) => hypothesisNegated(e.fields.hypothesis)).length;
      const d = s.design;
      assert.equal(high, Math.round(group.length * (label === 'Yes' ? d.overlapGivenYes : d.overlapGivenNo)), `${s.id} overlap | ${label}`);
      assert.equal(neg, Math.round(group.length * (label === 'Yes' ? d.negationGivenYes : d.negationGivenNo)), `${s.id} negation | ${label}`);
    }
  }
  const byId = Object.fromEntries(suite.testSets.map((s) => [s.id, s]));
  // Consistent: overlap predicts the label at the configured rate (0.9); broken: it predicts the opposite.
  assert.equal(accuracy(byId['overlap-consistent'].examples, cueClassifiers.overlap), 0.9);
  assert.equal(accuracy(byId['overlap-broken'].examples, cueClassifiers.overlap), 0.1);
  assert.equal(accuracy(byId['negation-consistent'].examples, cueClassifiers.negation), 0.95);
  assert.equal(accuracy(byId['negation-broken'].examples, cueClassifiers.negation), 0.05);
  // The cue a set is not built around occurs at its overall training rate, independently of the label.
  const id = byId['in-domain'].design;
  for (const sid of ['overlap-consistent', 'overlap-broken']) {
    const rate = (id.negationGivenYes + id.negationGivenNo) / 2;
    assert.deepEqual([byId[sid].design.negationGivenYes, byId[sid].design.negationGivenNo], [rate, rate], sid);
  }
  for (const sid of ['negation-consistent', 'negation-broken', 'negation-consistent-renamed']) {
    const rate = (id.overlapGivenYes + id.overlapGivenNo) / 2;
    assert.deepEqual([byId[sid].design.overlapGivenYes, byId[sid].design.overlapGivenNo], [rate, rate], sid);
  }
});

test('cue strengths are configurable', () => {
  const s = generateSuite(
    { seed: 3, trainSize: 400, testSize: 200, idOverlapRate: 0.6, oodCueRate: 0.75, idNegationGivenNo: 0, idNegationGivenYes: 0 });
  assert.equal(accuracy(s.train, cueClassifiers.overlap), 0.6);
  assert.ok(s.train.every((e) => !hypothesisNegated(e.fields.hypothesis)));
  assert.equal(accuracy(s.testSets.find((t) => t.id === 'overlap-broken')!.examples, cueClassifiers.overlap), 0.25);
});

test('learnability without a model: the true rule is perfect everywhere; cue heuristics follow the design', () => {
  for (const s of allSets()) assert.equal(accuracy(s.examples, cueClassifiers.rule), 1, s.id);
  const acc = (id: string, f: keyof typeof cueClassifiers) =>
    accuracy(id === 'train' ? suite.train : suite.testSets.find((t) => t.id === id)!.examples, cueClassifiers[f]);
  // Cue-only heuristics: high where their cue is consistent, low where it is broken.
  for (const id of ['train', 'in-domain']) assert.ok(acc(id, 'both') >= 0.8, `${id}: ${acc(id, 'both')}`);
  assert.ok(acc('overlap-consistent', 'overlap') >= 0.9);
  assert.ok(acc('overlap-broken', 'overlap') <= 0.1);
  for (const id of ['negation-consistent', 'negation-consistent-renamed']) assert.ok(acc(id, 'negation') >= 0.9, `${id}: ${acc(id, 'negation')}`);
  assert.ok(acc('negation-broken', 'negation') <= 0.1);
});

test('the vocabulary-shift set uses held-out nouns, which training never contains', () => {
  const heldOut = new Set(CATEGORIES.flatMap((c) => HELD_OUT_NOUNS[c]));
  const idNouns = new Set(CATEGORIES.flatMap((c) => ID_NOUNS[c]));
  const words = (e: Example) => [e.fields.premise, e.fields.hypothesis].flatMap((t) => { const s = parseSentence(t); return [s.subject, s.object]; });
  for (const s of allSets()) {
    const ws = s.examples.flatMap(words);
    if (s.id === 'vocabulary-shift') {
      assert.ok(ws.every((w) => !idNouns.has(w)), 'no ID hyponyms in the shifted set');
      assert.ok(ws.filter((w) => heldOut.has(w)).length > ws.length / 2);
    } else {
      assert.ok(ws.every((w) => !heldOut.has(w)), s.id);
    }
  }
});

test('text is short and no (premise, hypothesis) pair repeats across the suite', () => {
  const seen = new Set<string>();
  for (const s of allSets()) {
    for (const e of s.examples) {
      assert.ok(`${e.fields.premise} ${e.fields.hypothesis}`.split(' ').length <= 24);
      const key = `${e.fields.premise}\t${e.fields.hypothesis}`;
      assert.ok(!seen.has(key), key);
      seen.add(key);
      assert.equal(trueLabel(e.fields.premise, e.fields.hypothesis), e.label);
    }
  }
});

test('the true rule on hand-picked cases', () => {
  assert.equal(trueLabel('the dog sees the cat.', 'the animal notices the cat.'), 'Yes');
  assert.equal(trueLabel('the animal sees the cat.', 'the dog sees the cat.'), 'No');
  assert.equal(trueLabel('the dog sees the cat.', 'the cat sees the dog.'), 'No');
  assert.equal(trueLabel('the dog sees the cat in the park.', 'the dog sees the cat.'), 'Yes');
  assert.equal(trueLabel('the dog never sees the cat in the park.', 'the dog never sees the cat.'), 'No');
  assert.equal(trueLabel('the dog never sees the cat.', 'the dog never notices the cat in the park.'), 'Yes');
  assert.equal(trueLabel('the dog never sees the cat.', 'the animal never sees the cat.'), 'No');
  assert.equal(trueLabel('the dog sees the cat.', 'the dog never sees the cat.'), 'No');
  assert.throws(() => parseSentence('the dog barks.'), /not a sentence of the synthetic suite/);
});

test('bad options are user errors', () => {
  assert.throws(() => generateSuite({ seed: 1.5, trainSize: 10, testSize: 10 }), UserError);
  assert.throws(() => generateSuite({ seed: 1, trainSize: 1, testSize: 10 }), /trainSize must be an integer >= 2/);
  assert.throws(() => generateSuite({ seed: 1, trainSize: 10, testSize: 10, oodCueRate: 2 }), /oodCueRate must be in \[0, 1\]/);
  const d = suite.testSets[1].design;
  assert.throws(() => generateSuite({ seed: 1, trainSize: 10, testSize: 10, oodSets: [d, d] }), /two sets are called/);
  assert.throws(() => generateSuite({ seed: 1, trainSize: 10, testSize: 10, oodSets: [{ ...d, id: 'Bad Id' }] }), /set id "Bad Id"/);
});
