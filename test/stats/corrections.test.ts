import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustPValues, type Correction } from '../../src/stats/index.ts';
import { assertClose, golden } from './helpers.ts';

interface Case { name: string; p: number[]; bonferroni: number[]; holm: number[]; bh: number[]; by: number[] }
const cases = golden<{ cases: Case[] }>('corrections.json').cases;

test('adjustPValues matches statsmodels multipletests (bonferroni, holm, fdr_bh, fdr_by)', () => {
  for (const c of cases) {
    for (const method of ['bonferroni', 'holm', 'bh', 'by'] as const) {
      const got = adjustPValues(c.p, method);
      c[method].forEach((want, i) => assertClose(got[i], want, 1e-12, `${c.name} ${method} [${i}]`));
    }
  }
});

test('nulls pass through and are not counted in m', () => {
  const c = cases.find((k) => k.name === 'ten')!;
  const withNulls = [null, ...c.p.slice(0, 5), null, ...c.p.slice(5)];
  for (const method of ['bonferroni', 'holm', 'bh', 'by'] as Correction[]) {
    const got = adjustPValues(withNulls, method);
    assert.equal(got[0], null);
    assert.equal(got[6], null);
    const dense = got.filter((v) => v !== null);
    (c as unknown as Record<string, number[]>)[method].forEach((want, i) => assertClose(dense[i], want, 1e-12, `${method} [${i}]`));
  }
  assert.deepEqual(adjustPValues([null, null], 'holm'), [null, null]);
});

test("'none' leaves p unchanged; out-of-range p throws", () => {
  assert.deepEqual(adjustPValues([0.01, null, 0.5], 'none'), [0.01, null, 0.5]);
  assert.throws(() => adjustPValues([0.1, 1.5], 'holm'), /index 1/);
  assert.throws(() => adjustPValues([0.1, NaN], 'bh'), /index 1/);
});
