import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  accuracy,
  binaryF1,
  binaryPrf,
  exactMatch,
  macroF1,
  normalizeAnswer,
} from '../../src/metrics/classification.ts';
import { goldenDir } from './paths.ts';

interface Case {
  name: string;
  golds: string[];
  predictions: string[];
  positive: string;
  labels?: string[];
  expected: { accuracy: number; binaryP: number; binaryR: number; binaryF1: number; macroF1: number };
}
interface ExactMatchCase {
  predictions: string[];
  references: string[];
  expected: { raw: number; squad: number; normalized: string[] };
}
const golden = JSON.parse(readFileSync(path.join(goldenDir, 'classification.json'), 'utf8')) as {
  cases: Case[];
  exact_match: ExactMatchCase[];
};

const close = (got: number, want: number, what: string) =>
  assert.ok(Math.abs(got - want) <= 1e-12, `${what}: got ${got}, scikit-learn ${want}`);

for (const c of golden.cases) {
  test(`classification metrics equal scikit-learn: ${c.name}`, () => {
    close(accuracy(c.predictions, c.golds), c.expected.accuracy, 'accuracy');
    const prf = binaryPrf(c.predictions, c.golds, c.positive);
    close(prf.p, c.expected.binaryP, 'binary precision');
    close(prf.r, c.expected.binaryR, 'binary recall');
    close(prf.f, c.expected.binaryF1, 'binary F1');
    close(binaryF1(c.predictions, c.golds, c.positive), c.expected.binaryF1, 'binaryF1');
    close(macroF1(c.predictions, c.golds, c.labels), c.expected.macroF1, 'macro F1');
  });
}

test('golden file covers the zero-division cases', () => {
  const names = golden.cases.map((c) => c.name);
  assert.ok(names.includes('no positives in gold or predictions'));
  assert.ok(names.includes('never predicts the positive label'));
});

test('exact match, raw and with SQuAD normalisation, equals the Python reference', () => {
  for (const c of golden.exact_match) {
    assert.equal(exactMatch(c.predictions, c.references), c.expected.raw);
    assert.equal(exactMatch(c.predictions, c.references, { normalize: normalizeAnswer }), c.expected.squad);
    assert.deepEqual([...c.predictions, ...c.references].map(normalizeAnswer), c.expected.normalized);
  }
});

test('unequal lengths and empty inputs are errors, not NaN', () => {
  assert.throws(() => accuracy(['a'], ['a', 'b']), /1 predictions but 2 gold labels/);
  assert.throws(() => binaryF1([], [], 'a'), /no examples/);
  assert.throws(() => macroF1(['a'], []), RangeError);
  assert.throws(() => exactMatch([], []), /no examples/);
});
