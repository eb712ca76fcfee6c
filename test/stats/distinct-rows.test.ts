// denseIds and countDistinctRows (a hash table of the values; the count over repeated rows only)
// against the plain forms they replaced (a comparator sort of the rows; every row hashed), on
// columns drawn to have ties, plateaus, -0 beside 0, NaN, infinities, and level products past 2^53.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countDistinctRows, createRandom, denseIds, type Random } from '../../src/stats/index.ts';

function referenceIds(column: Float64Array): { ids: Int32Array; levels: number } {
  const order = Array.from({ length: column.length }, (_, i) => i).sort((a, b) => column[a] - column[b]);
  const ids = new Int32Array(column.length);
  let level = -1, previous = NaN;
  for (const i of order) {
    if (column[i] !== previous) { level++; previous = column[i]; }
    ids[i] = level;
  }
  return { ids, levels: level + 1 };
}

function referenceCount(columns: readonly { ids: Int32Array }[], n: number): number {
  return new Set(Array.from({ length: n }, (_, t) => columns.map((c) => c.ids[t]).join(','))).size;
}

function drawColumn(random: Random, n: number): Float64Array {
  const kind = random.int(6);
  return Float64Array.from({ length: n }, () => {
    const u = random.uniform();
    if (kind === 0) return u;
    if (kind === 1) return Math.round(u * 4) / 4; // a few levels
    if (kind === 2) return u < 0.2 ? 0 : u < 0.4 ? -0 : u; // both zeros
    if (kind === 3) return u < 0.1 ? Infinity : u < 0.2 ? -Infinity : Math.round(u * 10);
    if (kind === 4) return u < 0.15 ? NaN : Math.round(u * 6);
    return 0.5; // constant
  });
}

/** Whether two id arrays make the same classes of rows (the same ids up to a renaming). */
function samePartition(a: Int32Array, b: Int32Array): boolean {
  const ab = new Map<number, number>(), ba = new Map<number, number>();
  return a.length === b.length && Array.from(a).every((x, i) => (ab.get(x) ?? (ab.set(x, b[i]), b[i])) === b[i]
    && (ba.get(b[i]) ?? (ba.set(b[i], x), x)) === x);
}

test('denseIds groups the rows as the comparator sort\'s ids do, with as many levels, and the rows whose value repeats', () => {
  const random = createRandom(7);
  for (let c = 0; c < 3000; c++) {
    const n = random.int(c < 2990 ? 40 : 40000); // and a few past the hash table's 32768 slots
    const column = drawColumn(random, n);
    const got = denseIds(column), want = referenceIds(column);
    assert.ok(samePartition(got.ids, want.ids), `case ${c}: ${Array.from(column)}`);
    assert.ok(got.ids.every((id) => id >= 0 && id < got.levels));
    assert.equal(got.levels, want.levels);
    const count = new Map<number, number>();
    for (const id of want.ids) count.set(id, (count.get(id) ?? 0) + 1);
    const repeated = Array.from({ length: n }, (_, i) => i).filter((i) => count.get(want.ids[i])! > 1);
    assert.deepEqual(Array.from(got.repeated), repeated);
  }
});

test('countDistinctRows counts what hashing every row counts', () => {
  const random = createRandom(11);
  for (let c = 0; c < 3000; c++) {
    const n = random.int(40);
    const columns = Array.from({ length: random.int(5) }, () => drawColumn(random, n)).map(denseIds);
    assert.equal(countDistinctRows(columns, n), referenceCount(columns, n), `case ${c}`);
  }
  // levels whose product passes 2^53 (string keys), with repeated rows
  const n = 400; // rows 300-399 repeat rows 0-99
  const wide = Array.from({ length: 8 }, (_, k) => Float64Array.from({ length: n }, (_, i) => (k === 0 ? i % 100 : (i * 7 + k) % 300)));
  const ids = wide.map(denseIds);
  assert.ok(ids.reduce((p, c) => p * c.levels, 1) >= 2 ** 53);
  assert.equal(countDistinctRows(ids, n), 300);
  assert.equal(referenceCount(ids, n), 300);
});
