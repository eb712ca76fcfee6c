/**
 * How many distinct observations a set of aligned series really holds. Checkpoints on a plateau
 * repeat the same scores: k copies of one row add no information about a correlation, yet a test
 * that counts rows would treat them as k independent observations (a small model's 21 checkpoints
 * with 8 distinct score vectors would get df 18 instead of at most 5). The inference caps its
 * sample size at this count, and a pair with too few distinct rows is a null result.
 */

/** Each value's index among the column's sorted distinct values, and how many distinct values there are. */
export interface DenseIds { ids: Int32Array; levels: number }

export function denseIds(column: Float64Array): DenseIds {
  const n = column.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => column[a] - column[b]);
  const ids = new Int32Array(n);
  let level = -1;
  let previous = NaN;
  for (const i of order) {
    if (column[i] !== previous) { level++; previous = column[i]; }
    ids[i] = level;
  }
  return { ids, levels: level + 1 };
}

/** The number of distinct rows (t = 0..n-1) across the given columns. */
export function countDistinctRows(columns: readonly DenseIds[], n: number): number {
  if (columns.some((c) => c.levels === n)) return n; // one all-distinct column makes every row distinct
  if (columns.reduce((prod, c) => prod * c.levels, 1) >= 2 ** 53) {
    const keys = new Set<string>();
    for (let t = 0; t < n; t++) keys.add(columns.map((c) => c.ids[t]).join(','));
    return keys.size;
  }
  const seen = new Set<number>();
  for (let t = 0; t < n; t++) {
    // mixed-radix key: exact while the product of the levels stays below 2^53
    let key = 0;
    for (const c of columns) key = key * c.levels + c.ids[t];
    seen.add(key);
  }
  return seen.size;
}
