// Comparing two results stores made by different engines or servers: same rows, numbers within 1e-4.
import assert from 'node:assert/strict';

/** Same rows; numbers within 1e-4 (the remote server batches differently, so floats may differ in the last bits). */
export function assertStoresAgree(a: Record<string, unknown[]>, b: Record<string, unknown[]>): void {
  for (const table of ['runs', 'checkpoints', 'test_sets', 'scores', 'predictions']) {
    assert.equal(b[table].length, a[table].length, `${table}: row count`);
    a[table].forEach((row, i) => {
      const other = b[table][i] as Record<string, unknown>;
      for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
        if (typeof v === 'number') assert.ok(Math.abs(v - (other[k] as number)) <= 1e-4, `${table}[${i}].${k}: ${v} vs ${other[k]}`);
        else if (k === 'detail') assertNumbersClose(JSON.parse(String(v)), JSON.parse(String(other[k])), `${table}[${i}].detail`);
        else assert.deepEqual(other[k], v, `${table}[${i}].${k}`);
      }
    });
  }
  assert.equal(b.cache.length, a.cache.length, 'cache: one answer per question');
}

function assertNumbersClose(a: unknown, b: unknown, where: string): void {
  if (typeof a === 'number') { assert.ok(typeof b === 'number' && Math.abs(a - b) <= 1e-4, `${where}: ${a} vs ${b}`); return; }
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && b.length === a.length, where);
    a.forEach((x, i) => assertNumbersClose(x, (b as unknown[])[i], `${where}[${i}]`));
    return;
  }
  if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(b as object).sort(), Object.keys(a).sort(), where);
    for (const [k, v] of Object.entries(a)) assertNumbersClose(v, (b as Record<string, unknown>)[k], `${where}.${k}`);
    return;
  }
  assert.deepEqual(b, a, where);
}

