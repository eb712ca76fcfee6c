// The artifact design (the demo's suite) holds its relations by construction, on the generated
// sets themselves: each mirror is its source with one label-flipping edit per item that no cue sees
// (any predictor blind to the edit scores exactly 1 - its source score); place-variable is
// place-consistent with each place word exchanged for its counterpart, which variant a's training
// data ties to the label as the source's word (any predictor that sees a place word only through
// that tie scores the same on both) and variant b's the other way (a predictor led by the place
// word's tie scores 1 - its source score). The training variants and the in-domain set carry the
// leans the design states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Example } from '../../src/types.ts';
import {
  ARTIFACT_VARIANTS, BACKGROUND_STRENGTH, checkDesign, describeSuite, generateSuite, highOverlap, hypothesisNegated, parseSentence,
  PLACE_GROUPS, PLACE_STRENGTHS, placeLeans, RECAST, readSuite, trainingVariant, trueLabel, writeSuite, type Suite,
} from '../../src/synth/index.ts';
import { seededRandom } from '../../src/seeded-random.ts';

const suite: Suite = generateSuite({ seed: 3, trainSize: 2000, testSize: 300, design: 'artifacts' });
const byId = Object.fromEntries(suite.testSets.map((s) => [s.id, s.examples]));
const accuracy = (examples: readonly Example[], f: (e: Example) => string) => examples.filter((e) => f(e) === e.label).length / examples.length;
const placeOf = (e: Example) => parseSentence(e.fields.hypothesis).place;

test('the artifact suite: its sets, two training variants, and what each designed pair must do', () => {
  assert.deepEqual(suite.testSets.map((s) => s.id),
    ['in-domain', 'negation-consistent', 'negation-broken', 'place-consistent', 'place-broken', 'place-variable']);
  assert.deepEqual(suite.trainVariants!.map((v) => [v.id, v.examples.length]), [['a', 2000], ['b', 2000]]);
  assert.equal(suite.train, suite.trainVariants![0].examples);
  const designed = describeSuite(suite).expectedCorrelations.filter((c) => c.sign !== 'none')
    .map((c) => [[c.a, c.b].sort().join(' ~ '), c.sign, c.byVariant]);
  assert.deepEqual(designed, [
    ['negation-broken ~ negation-consistent', 'negative', undefined],
    ['place-broken ~ place-consistent', 'negative', undefined],
    ['place-consistent ~ place-variable', 'depends', { a: 'positive', b: 'negative' }],
    ['place-broken ~ place-variable', 'depends', { a: 'negative', b: 'positive' }],
  ]);
  const all = [...suite.trainVariants!.flatMap((v) => v.examples), ...suite.testSets.flatMap((s) => s.examples)];
  for (const e of all) assert.equal(trueLabel(e.fields.premise, e.fields.hypothesis), e.label, JSON.stringify(e));
  assert.equal(new Set(all.map((e) => `${e.fields.premise}\t${e.fields.hypothesis}`)).size, all.length, 'no item twice in the suite');
  assert.deepEqual(generateSuite({ seed: 3, trainSize: 2000, testSize: 300, design: 'artifacts' }), suite, 'the same options, the same suite');
});

/** A predictor that sees the premise, both cues and the place word, but not the edit: fixed random answers per what it sees. */
function blindToEdit(seed: number): (e: Example) => string {
  return (e) => {
    const key = [e.fields.premise, highOverlap(e.fields.premise, e.fields.hypothesis), hypothesisNegated(e.fields.hypothesis), placeOf(e)].join('|');
    return seededRandom(seed, key).next() < 0.5 ? 'Yes' : 'No';
  };
}

test('each mirror item is its source item with one label-flipping edit: same premise, cues and place; a predictor blind to it scores ' +
  '1 - source', () => {
  for (const [mirror, source] of [['negation-broken', 'negation-consistent'], ['place-broken', 'place-consistent']]) {
    byId[mirror].forEach((e, i) => {
      const s = byId[source][i];
      const where = `${mirror} #${i}`;
      assert.equal(e.fields.premise, s.fields.premise, where);
      assert.notEqual(e.label, s.label, where);
      assert.equal(highOverlap(e.fields.premise, e.fields.hypothesis), highOverlap(s.fields.premise, s.fields.hypothesis), where);
      assert.equal(hypothesisNegated(e.fields.hypothesis), hypothesisNegated(s.fields.hypothesis), where);
      assert.equal(placeOf(e), placeOf(s), where);
    });
    for (let seed = 0; seed < 20; seed++) {
      const f = blindToEdit(seed);
      assert.equal(Math.round((accuracy(byId[source], f) + accuracy(byId[mirror], f)) * 300), 300, `${mirror}, predictor ${seed}`);
    }
  }
});

test('the families: "never" exactly when the answer is No (negation), a place leaning to the label in every variant (place)', () => {
  for (const e of byId['negation-consistent']) assert.equal(hypothesisNegated(e.fields.hypothesis), e.label === 'No');
  const background = byId['negation-consistent'].filter((e) => placeOf(e) !== undefined);
  assert.ok(background.every((e) => (PLACE_GROUPS.background as readonly string[]).includes(placeOf(e)!)));
  for (const label of ['Yes', 'No']) {
    assert.equal(background.filter((e) => e.label === label).length, 75, `half of each label's items end in a background place (${label})`);
  }
  for (const e of byId['place-consistent']) {
    assert.ok(!hypothesisNegated(e.fields.hypothesis));
    assert.ok((e.label === 'Yes' ? PLACE_GROUPS.yes : PLACE_GROUPS.no as readonly string[]).includes(placeOf(e)!), JSON.stringify(e));
  }
});

/** Replaces each place word by its tie to the label in a variant's training data (its lean and strength). */
const tied = (text: string, variant: 'a' | 'b') => {
  const s = parseSentence(text);
  const lean = s.place === undefined ? null : placeLeans(variant).get(s.place);
  return JSON.stringify({ ...s, place: lean ? `${lean.label}:${lean.strength}` : s.place });
};

test('place-variable is place-consistent with each place exchanged for its counterpart; under variant a a predictor that sees places only through ' +
  'their tie scores the same', () => {
  byId['place-variable'].forEach((e, i) => {
    const s = byId['place-consistent'][i];
    assert.equal(e.label, s.label);
    assert.equal(e.fields.premise, s.fields.premise.replace(placeOf(s)!, RECAST.get(placeOf(s)!)!));
    assert.equal(e.fields.hypothesis, s.fields.hypothesis.replace(placeOf(s)!, RECAST.get(placeOf(s)!)!));
    assert.equal(tied(e.fields.hypothesis, 'a'), tied(s.fields.hypothesis, 'a'));
    assert.notEqual(tied(e.fields.hypothesis, 'b'), tied(s.fields.hypothesis, 'b'));
  });
  for (let seed = 0; seed < 20; seed++) {
    const f = (e: Example) =>
      (seededRandom(seed, e.fields.premise.replace(/ in the \w+\./, '.'), tied(e.fields.hypothesis, 'a')).next() < 0.5 ? 'Yes' : 'No');
    assert.equal(accuracy(byId['place-variable'], f), accuracy(byId['place-consistent'], f), `predictor ${seed}`);
  }
});

test('under variant b a predictor led by the place word\'s tie scores 1 - its place-consistent score on place-variable', () => {
  for (let seed = 0; seed < 20; seed++) {
    const rest = (e: Example) => 0.9 * (2 * seededRandom(seed, e.fields.premise.replace(/ in the \w+\./, '.')).next() - 1);
    const f = (e: Example) => {
      const lean = placeLeans('b').get(placeOf(e)!)!;
      // the tie's weight (its strength, at least 0.65) outweighs the rest (at most 0.9 x 0.65)
      const score = (lean.label === 'Yes' ? 1 : -1) * lean.strength + 0.65 * rest(e);
      return score > 0 ? 'Yes' : 'No';
    };
    const [l, v] = [accuracy(byId['place-consistent'], f), accuracy(byId['place-variable'], f)];
    assert.equal(Math.round((l + v) * 300), 300, `predictor ${seed}: ${l} + ${v}`);
  }
});

const leanIn = (examples: readonly Example[], word: string) => {
  const withWord = examples.filter((e) => placeOf(e) === word);
  return { n: withWord.length, yes: withWord.filter((e) => e.label === 'Yes').length / withWord.length };
};

test('the training variants tie each place word to the label as the design says; the in-domain set only the background places', () => {
  for (const v of ARTIFACT_VARIANTS) {
    const train = trainingVariant(suite, v);
    const leans = placeLeans(v);
    for (const [word, lean] of leans) {
      const { n, yes } = leanIn(train, word);
      const want = lean!.label === 'Yes' ? lean!.strength : 1 - lean!.strength;
      assert.ok(n >= 40 && Math.abs(yes - want) < 4 * Math.sqrt(want * (1 - want) / n) + 0.02,
        `${v}: ${word} Yes ${yes.toFixed(3)} of ${n}, designed ${want}`);
    }
    assert.ok(Math.abs(train.filter((e) => hypothesisNegated(e.fields.hypothesis) && e.label === 'No').length / 1000 - 0.4) < 0.05);
  }
  for (const [i, w] of PLACE_GROUPS.yesInA.entries()) {
    assert.deepEqual([placeLeans('a').get(w), placeLeans('b').get(w)],
      [{ label: 'Yes', strength: PLACE_STRENGTHS[i] }, { label: 'No', strength: PLACE_STRENGTHS[i] }]);
  }
  const inDomain = suite.testSets[0].examples;
  const big = generateSuite({ seed: 3, trainSize: 20, testSize: 4000, design: 'artifacts' }).testSets[0].examples;
  for (const w of [...PLACE_GROUPS.yes, ...PLACE_GROUPS.no, ...PLACE_GROUPS.yesInA, ...PLACE_GROUPS.noInA]) {
    const { n, yes } = leanIn(big, w);
    assert.ok(Math.abs(yes - 0.5) < 4 * Math.sqrt(0.25 / n), `in-domain: ${w} Yes ${yes.toFixed(3)} of ${n}`);
  }
  for (const w of PLACE_GROUPS.background) {
    const { n, yes } = leanIn(big, w);
    assert.ok(Math.abs(yes - (1 - BACKGROUND_STRENGTH)) < 4 * Math.sqrt(0.21 / n), `in-domain: ${w} Yes ${yes.toFixed(3)} of ${n}`);
  }
  assert.equal(inDomain.length, 300);
});

test('the variants are written and read back; a study names one as synthetic:<variant>, an unknown one is a user error', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-artifacts-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const small = generateSuite({ seed: 2, trainSize: 60, testSize: 20, design: 'artifacts' });
  await writeSuite(dir, small);
  assert.ok(fs.existsSync(path.join(dir, 'train.jsonl')) && fs.existsSync(path.join(dir, 'train-b.jsonl')));
  const read = await readSuite(dir);
  assert.deepEqual(read.trainVariants!.map((v) => [v.id, v.examples]), small.trainVariants!.map((v) => [v.id, v.examples]));
  assert.deepEqual(read.manifest.trainVariants!.map((v) => v.file), ['train.jsonl', 'train-b.jsonl']);
  assert.equal(trainingVariant(read, 'b'), read.trainVariants![1].examples);
  assert.equal(trainingVariant(read, undefined), read.train);
  assert.throws(() => trainingVariant(read, 'c'), /no training variant "c" \(it has a, b\)/);
  const classic = generateSuite({ seed: 2, trainSize: 60, testSize: 20 });
  assert.equal(classic.trainVariants, undefined);
  assert.throws(() => trainingVariant(classic, 'b'), /its design has one training set: use data: synthetic/);
  assert.throws(() => generateSuite({ seed: 2, trainSize: 60, testSize: 20, design: 'artifacts', oodCueRate: 0.5 }),
    /apply to the classic design only/);
});

test('designed against found on the artifact design: a variant-dependent pair must depend on the model with no run against its variant', () => {
  const expected = describeSuite(suite).expectedCorrelations;
  const runs = { r1: 'a', r2: 'a', r3: 'b', r4: 'b' };
  const row = (a: string, b: string, verdict: string, found: 'positive' | 'negative' | 'none',
    byRun: Record<string, 'positive' | 'negative' | null>) => {
    const signs = Object.values(byRun);
    return { a, b, positive: signs.filter((s) => s === 'positive').length, negative: signs.filter((s) => s === 'negative').length, runs: 4, verdict,
      found, byRun };
  };
  const good = [
    row('negation-broken', 'negation-consistent', 'generalises', 'negative', { r1: 'negative', r2: 'negative', r3: 'negative', r4: 'negative' }),
    row('place-broken', 'place-consistent', 'generalises', 'negative', { r1: 'negative', r2: 'negative', r3: 'negative', r4: null }),
    row('place-consistent', 'place-variable', 'depends on the model', 'none', { r1: 'positive', r2: null, r3: 'negative', r4: 'negative' }),
    row('place-broken', 'place-variable', 'depends on the model', 'none', { r1: 'negative', r2: null, r3: 'positive', r4: null }),
    row('negation-consistent', 'place-variable', 'depends on the model', 'none', { r1: 'negative', r2: null, r3: 'positive', r4: null }),
    row('negation-consistent', 'place-consistent', 'inconclusive', 'none', { r1: null, r2: null, r3: null, r4: null }),
  ];
  const pass = checkDesign(expected, good, 2, runs);
  assert.equal(pass.passed, true, pass.verdict);
  assert.equal(pass.verdict, 'Recovered: 2 of 2 designed pairs generalise with their designed sign across the 4 runs, 2 of 2 pairs designed to ' +
    'depend on the training variant depend on the model with no run against its variant\'s sign; 0 of 2 pairs with no designed relation ' +
    'generalise (at most 2 allowed).');
  assert.equal(pass.rows.find((r) => r.a === 'negation-consistent' && r.b === 'place-variable')!.outcome, 'quiet',
    'no construction ties them: depending on the model claims no sign');
  // A run of variant a with the sign designed for b fails the pair, though the verdict is "depends on the model".
  const against = good.map((r) =>
    (r.b === 'place-variable' && r.a === 'place-consistent' ? { ...r, byRun: { ...r.byRun, r2: 'negative' as const } } : r));
  const fail = checkDesign(expected, against, 2, runs);
  assert.equal(fail.passed, false);
  assert.match(fail.verdict, /place-consistent \/ place-variable has the other variant's sign in r2/);
  // The same sign in every run is "generalises", not the designed verdict: missed.
  const same = good.map((r) =>
    (r.a === 'place-consistent' && r.b === 'place-variable' ? { ...r, verdict: 'generalises', found: 'positive' as const } : r));
  assert.match(checkDesign(expected, same, 2, runs).verdict, /^Not recovered: .*\(place-consistent \/ place-variable is generalises\)\.$/);
  // An undesigned pair that generalises is spurious; a pair designed negligible must be negligible everywhere.
  const negligible = [...expected, { a: 'x', b: 'y', sign: 'negligible' as const, why: 'test' }];
  const c = checkDesign(negligible, [...good, row('x', 'y', 'inconclusive', 'none', {})], 2, runs);
  assert.equal(c.rows.find((r) => r.a === 'x')!.outcome, 'missed');
  assert.match(c.verdict, /0 of 1 pairs designed negligible are negligible everywhere/);
  assert.equal(checkDesign(negligible, [...good, row('x', 'y', 'negligible everywhere', 'none', {})], 2, runs).passed, true);
});
