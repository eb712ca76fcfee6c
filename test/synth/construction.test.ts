// The suite's designed relations hold by construction, on the generated sets themselves: a mirror
// set is its source with one label-flipping edit per item that no cue sees, so any predictor blind
// to that edit scores exactly 1 - (its score on the source); a twin is its source with its nouns
// renamed, so any predictor blind to which nouns are named scores the same on both.
// These tests fail if a change to the builder breaks either promise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Example } from '../../src/types.ts';
import {
  CATEGORIES, describeSuite, generateSuite, HELD_OUT_NOUNS, highOverlap, hypernymOf, hypothesisNegated, parseSentence, mirroredRates, trueLabel,
  type SetDesign, type Suite,
} from '../../src/synth/index.ts';
import { seededRandom } from '../../src/seeded-random.ts';

const suite: Suite = generateSuite({ seed: 5, trainSize: 400, testSize: 300 });
const byId = Object.fromEntries(suite.testSets.map((s) => [s.id, s]));
const mirrors = suite.testSets.filter((s) => s.design.source?.how === 'mirror');
const twins = suite.testSets.filter((s) => s.design.source?.how === 'twin');
const HELD_OUT = new Set(CATEGORIES.flatMap((c) => HELD_OUT_NOUNS[c]));

test('the default suite has mirrored and twin sets, and the design says which way each pair must move', () => {
  assert.deepEqual(mirrors.map((s) => [s.id, s.design.source!.set]), [['negation-broken', 'negation-consistent']]);
  assert.deepEqual(twins.map((s) => [s.id, s.design.source!.set, s.design.vocabulary]),
    [['negation-consistent-renamed', 'negation-consistent', 'id'], ['vocabulary-shift', 'negation-consistent', 'held-out']]);
  const signs = Object.fromEntries(
    describeSuite(suite).expectedCorrelations.filter((c) => c.sign !== 'none').map((c) => [[c.a, c.b].sort().join(' ~ '), c.sign]));
  assert.deepEqual(signs, {
    'negation-broken ~ negation-consistent': 'negative',
    'negation-broken ~ negation-consistent-renamed': 'negative',
    'negation-broken ~ vocabulary-shift': 'negative',
    'negation-consistent ~ negation-consistent-renamed': 'positive',
    'negation-consistent ~ vocabulary-shift': 'positive',
    'negation-consistent-renamed ~ vocabulary-shift': 'positive',
  });
});

const words = (text: string) => {
  const s = parseSentence(text);
  return [s.subject, s.negated ? 'never' : '', s.verb, s.object, s.place ?? ''];
};

test('a mirror item is its source item with one edit to the hypothesis that flips the label and keeps both cues', () => {
  for (const m of mirrors) {
    const source = byId[m.design.source!.set].examples;
    assert.equal(m.examples.length, source.length);
    m.examples.forEach((e, i) => {
      const s = source[i];
      const where = `${m.id} #${i}: ${JSON.stringify(s.fields)} -> ${JSON.stringify(e.fields)}`;
      assert.equal(e.fields.premise, s.fields.premise, where);
      assert.notEqual(e.label, s.label, where);
      assert.equal(trueLabel(e.fields.premise, e.fields.hypothesis), e.label, where);
      assert.equal(highOverlap(e.fields.premise, e.fields.hypothesis), highOverlap(s.fields.premise, s.fields.hypothesis), where);
      assert.equal(hypothesisNegated(e.fields.hypothesis), hypothesisNegated(s.fields.hypothesis), where);
      const [a, b] = [words(s.fields.hypothesis), words(e.fields.hypothesis)];
      const changed = a.filter((w, k) => w !== b[k]).length;
      const swapped = a[0] === b[3] && a[3] === b[0] && a[2] === b[2] && a[4] === b[4];
      assert.ok(changed === 1 || (changed === 2 && swapped), `${where}: one word exchanged, or subject and object swapped`);
    });
  }
});

/** A predictor that sees the premise and both cues but not the edit: fixed random answers per (premise, overlap, negation). */
function blindPredictor(seed: number): (e: Example) => string {
  return (e) => {
    const key = [e.fields.premise, highOverlap(e.fields.premise, e.fields.hypothesis), hypothesisNegated(e.fields.hypothesis)].join('|');
    return seededRandom(seed, key).next() < 0.5 ? 'Yes' : 'No';
  };
}
const accuracy = (examples: readonly Example[], f: (e: Example) => string) => examples.filter((e) => f(e) === e.label).length / examples.length;

test('any predictor blind to the edit scores exactly 1 minus its source score on a mirror: the two move against each other', () => {
  for (const m of mirrors) {
    const source = byId[m.design.source!.set].examples;
    for (let seed = 0; seed < 20; seed++) {
      const f = blindPredictor(seed);
      assert.equal(Math.round((accuracy(source, f) + accuracy(m.examples, f)) * 300), 300, `${m.id}, predictor ${seed}`);
    }
  }
});

const nounShape = (text: string) => {
  const s = parseSentence(text);
  return { ...s, subject: hypernymOf(s.subject) ?? `=${s.subject}`, object: hypernymOf(s.object) ?? `=${s.object}` };
};

test('a twin item is its source item with every noun renamed within its category, the same way in both sentences', () => {
  for (const t of twins) {
    const source = byId[t.design.source!.set].examples;
    assert.equal(t.examples.length, source.length);
    t.examples.forEach((e, i) => {
      const s = source[i];
      const where = `${t.id} #${i}: ${JSON.stringify(s.fields)} -> ${JSON.stringify(e.fields)}`;
      const [sp, sh, ep, eh] = [s.fields.premise, s.fields.hypothesis, e.fields.premise, e.fields.hypothesis].map(parseSentence);
      assert.notEqual(ep.subject, sp.subject, where);
      if (t.design.vocabulary === 'held-out')
        assert.ok([ep.subject, ep.object, eh.subject, eh.object].every((n) => hypernymOf(n) === undefined || HELD_OUT.has(n)), where);
      // same verbs, polarity, places; nouns of the same category; category words where they were
      for (const [a, b] of [[sp, ep], [sh, eh]]) {
        assert.deepEqual([b.negated, b.verb, b.place], [a.negated, a.verb, a.place], where);
        for (const k of ['subject', 'object'] as const) assert.equal(hypernymOf(b[k]) ?? b[k], hypernymOf(a[k]) ?? a[k], where);
      }
      // one renaming for both sentences: equal nouns stay equal, different ones different
      const pairs = [[sp.subject, ep.subject], [sp.object, ep.object], [sh.subject, eh.subject], [sh.object, eh.object]];
      for (const [a1, b1] of pairs) for (const [a2, b2] of pairs) assert.equal(a1 === a2, b1 === b2, where);
      assert.equal(e.label, s.label, where);
      assert.equal(highOverlap(e.fields.premise, e.fields.hypothesis), highOverlap(s.fields.premise, s.fields.hypothesis), where);
      assert.equal(hypothesisNegated(e.fields.hypothesis), hypothesisNegated(s.fields.hypothesis), where);
    });
  }
});

test('any predictor blind to which nouns are named scores the same on a twin as on its source: the two move together', () => {
  for (const t of twins) {
    const source = byId[t.design.source!.set].examples;
    for (let seed = 0; seed < 20; seed++) {
      const f = (e: Example) =>
        (seededRandom(seed, JSON.stringify(nounShape(e.fields.premise)), JSON.stringify(nounShape(e.fields.hypothesis))).next() < 0.5 ? 'Yes' : 'No');
      assert.equal(accuracy(t.examples, f), accuracy(source, f), `${t.id}, predictor ${seed}`);
    }
  }
});

test('each cue family ignores the other cue: it occurs independently of the label', () => {
  for (const s of suite.testSets.filter((t) => t.cue !== 'none')) {
    const other = s.cue === 'overlap' ? (e: Example) => hypothesisNegated(e.fields.hypothesis) : (e: Example) =>
      highOverlap(e.fields.premise, e.fields.hypothesis);
    const rate = (label: string) =>
      s.examples.filter((e) => e.label === label && other(e)).length / s.examples.filter((e) => e.label === label).length;
    assert.ok(Math.abs(rate('Yes') - rate('No')) <= 0.01, `${s.id}: ${rate('Yes')} vs ${rate('No')}`);
  }
});

test('designs that cannot be built are user errors', () => {
  const [oc, ob, nc] = suite.options.oodSets;
  const build = (oodSets: SetDesign[]) => generateSuite({ seed: 1, trainSize: 50, testSize: 20, oodSets });
  assert.throws(() => build([{ ...oc, id: 'm', relation: 'broken', source: { set: 'oc-later', how: 'mirror' } }]),
    /built from "oc-later", which is not a test set listed before it/);
  assert.throws(() => build([oc, { ...oc, id: 'm', source: { set: oc.id, how: 'mirror' } }]),
    /so its overlapGivenYes must be 0 \(the source's, with the labels exchanged\)/);
  assert.equal(build([oc, { ...ob, source: { set: oc.id, how: 'mirror' } }]).testSets.length, 3);
  assert.throws(() => build([oc, nc, { ...nc, id: 'm', source: { set: oc.id, how: 'mirror' } }]), /both must be built around the same cue/);
  assert.throws(() => build([oc, { ...oc, id: 't', negationGivenNo: 0.5, source: { set: oc.id, how: 'twin' } }]),
    /so its negationGivenNo must be 0.25 \(the source's\)/);
  assert.throws(() => build([nc, { ...nc, ...mirroredRates(nc), id: 'm', source: { set: nc.id, how: 'mirror' } },
    { ...nc, ...mirroredRates(nc), id: 'm2', source: { set: nc.id, how: 'mirror' } }]), /which already has a mirror/);
  assert.throws(() => build([nc, { ...nc, id: 't', source: { set: nc.id, how: 'twin' } }, { ...nc, id: 't2', source: { set: 't', how: 'twin' } }]),
    /which is itself built from another set/);
});
