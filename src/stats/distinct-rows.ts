/**
 * How many distinct observations a set of aligned series really holds. Checkpoints on a plateau
 * repeat the same scores: k copies of one row add no information about a correlation, yet a test
 * that counts rows would treat them as k independent observations (a small model's 21 checkpoints
 * with 8 distinct score vectors would get df 18 instead of at most 5). The inference caps its
 * sample size at this count, and a pair with too few distinct rows is a null result.
 */

/**
 * An id per distinct value (equal values, -0 and 0 alike, share one; each NaN is its own, as `!==`
 * sees them), how many distinct values there are, and the rows whose value occurs more than once
 * (ascending): only those can repeat a row. Only equality matters to the counts made of them.
 */
export interface DenseIds { ids: Int32Array; levels: number; repeated: Int32Array }

const bits = new Float64Array(1), words = new Uint32Array(bits.buffer);

export function denseIds(column: Float64Array): DenseIds {
  const n = column.length;
  // An open-addressing table on the values' bits, ids in the order first seen: the analysis makes
  // these for every series, and a comparator sort each was 0.27 of 4.9 profiled seconds of the
  // cheapest analysis of 30 x 20 x 1000 (a typed-array sort and a search per value, 0.15 of 1.1).
  let size = 16, shift = 28;
  while (size < 2 * n) { size *= 2; shift--; }
  const mask = size - 1, table = new Int32Array(size).fill(-1), distinct = new Float64Array(n), ids = new Int32Array(n);
  let levels = 0;
  for (let i = 0; i < n; i++) {
    const v = column[i];
    if (v !== v) return denseIdsByComparator(column); // NaN: no slot can hold "equal to nothing"
    bits[0] = v === 0 ? 0 : v;
    // the top bits of a multiplicative hash of both words
    let h = Math.imul(words[0] ^ Math.imul(words[1], 0x9e3779b1), 0x85ebca6b) >>> shift;
    let id = table[h];
    while (id >= 0 && distinct[id] !== v) {
      h = (h + 1) & mask;
      id = table[h];
    }
    if (id < 0) {
      id = table[h] = levels;
      distinct[levels++] = v;
    }
    ids[i] = id;
  }
  return { ids, levels, repeated: repeatedRows(ids, levels) };
}

/** The same ids by sorting the rows (a NaN is a level of its own, as `!==` sees it). */
function denseIdsByComparator(column: Float64Array): DenseIds {
  const n = column.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => column[a] - column[b]);
  const ids = new Int32Array(n);
  let level = -1;
  let previous = NaN;
  for (const i of order) {
    if (column[i] !== previous) { level++; previous = column[i]; }
    ids[i] = level;
  }
  return { ids, levels: level + 1, repeated: repeatedRows(ids, level + 1) };
}

function repeatedRows(ids: Int32Array, levels: number): Int32Array {
  if (levels === ids.length) return new Int32Array(0);
  const count = new Int32Array(levels);
  for (let i = 0; i < ids.length; i++) count[ids[i]]++;
  let m = 0;
  for (let i = 0; i < ids.length; i++) if (count[ids[i]] > 1) m++;
  const rows = new Int32Array(m);
  m = 0;
  for (let i = 0; i < ids.length; i++) if (count[ids[i]] > 1) rows[m++] = i;
  return rows;
}

/**
 * The number of distinct rows (t = 0..n-1) across the given columns. A row whose value in any one
 * column occurs nowhere else in it is distinct, so only the rows repeated in the column with the
 * fewest repeats are compared (the pairs' tests count this per pair: hashing all n rows each time
 * was 0.25 of 4.9 profiled seconds of the cheapest analysis of 30 x 20 x 1000).
 */
export function countDistinctRows(columns: readonly DenseIds[], n: number): number {
  if (columns.length === 0) return Math.min(n, 1);
  let pivot = columns[0];
  for (const c of columns) if (c.repeated.length < pivot.repeated.length) pivot = c;
  const rows = pivot.repeated;
  if (rows.length === 0) return n;
  if (columns.reduce((prod, c) => prod * c.levels, 1) >= 2 ** 53) {
    const keys = new Set<string>();
    for (const t of rows) keys.add(columns.map((c) => c.ids[t]).join(','));
    return n - rows.length + keys.size;
  }
  const seen = new Set<number>();
  for (const t of rows) {
    // mixed-radix key: exact while the product of the levels stays below 2^53
    let key = 0;
    for (const c of columns) key = key * c.levels + c.ids[t];
    seen.add(key);
  }
  return n - rows.length + seen.size;
}
