import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { pearson, rank, spearman } from '../../src/stats/index.ts';
import { assertClose, golden } from './helpers.ts';

interface CorrCase { name: string; x: number[]; y: number[]; pearson: number; spearman: number; rank_x: number[] }
const cases = golden<{ correlation: CorrCase[] }>('correlation.json').correlation;

test('pearson and spearman match scipy.stats.pearsonr / spearmanr to 1e-9', () => {
  for (const c of cases) {
    assertClose(pearson(c.x, c.y), c.pearson, 1e-9, `${c.name} pearson`);
    assertClose(spearman(c.x, c.y), c.spearman, 1e-9, `${c.name} spearman`);
  }
});

test('rank gives scipy rankdata average ranks, ties included', () => {
  for (const c of cases) {
    const r = rank(c.x);
    c.rank_x.forEach((v, i) => assert.equal(r[i], v, `${c.name} rank ${i}`));
  }
  assert.deepEqual(Array.from(rank([3, 1, 3, 2, 3])), [4, 1, 4, 2, 4]);
  assert.deepEqual(Array.from(rank([-0, 0, -1])), [2.5, 2.5, 1]);
});

test('spearman with ties is pearson of average ranks', () => {
  const ties = cases.find((c) => c.name === 'ties')!;
  assert.ok(new Set(ties.x).size < ties.x.length, 'the ties case has ties');
  assertClose(spearman(ties.x, ties.y), pearson(rank(ties.x), rank(ties.y))!, 1e-15, 'ties');
});

test('a constant series gives null, not NaN or 0', () => {
  assert.equal(pearson([1, 1, 1, 1], [1, 2, 3, 4]), null);
  assert.equal(spearman([1, 2, 3, 4], [5, 5, 5, 5]), null);
});

test('length mismatch and NaN throw UserError naming the series and index', () => {
  assert.throws(() => pearson([1, 2, 3], [1, 2]), (e: Error) => e instanceof UserError && /'y' has 2 values but 'x' has 3/.test(e.message));
  assert.throws(() => spearman([1, 2, NaN, 4], [1, 2, 3, 4]), (e: Error) => e instanceof UserError && /'x'.*index 2/.test(e.message));
  assert.throws(() => pearson([1, 2, 3], [1, Infinity, 3]), /'y'.*index 1/);
});

test('rank agrees with the definition on ties, negatives, -0 and extreme magnitudes', () => {
  const values: number[] = [];
  for (let i = 0; i < 300; i++) {
    const base = ((i * 7919) % 23) - 11;
    values.push(i % 5 === 0 ? base : i % 7 === 0 ? base * 1e300 : i % 11 === 0 ? base * 1e-300 : base / 3);
  }
  values.push(-0, 0, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE);
  const got = rank(values);
  values.forEach((v, i) => {
    let less = 0, equal = 0;
    for (const w of values) { if (w < v) less++; else if (w === v) equal++; }
    assert.equal(got[i], less + (equal + 1) / 2, `rank of ${v}`);
  });
});
