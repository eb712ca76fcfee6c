// The scores' rows grouped by (run, metric, test set), each group in step order: what the series,
// the duplicate check and the reading's summary need, made by one counting sort (no key string or
// map entry per row: a Map keyed by JSON per row held 15M entries at a sweep's size). Groups are
// numbered by run, then metric, then test set (ids in the order first read), so a run's groups
// are contiguous.

/** What the index reads of the score columns (score-columns.ts), by row number. */
export interface IndexedRows {
  readonly length: number;
  readonly runs: readonly unknown[];
  readonly testSets: readonly unknown[];
  readonly metrics: readonly unknown[];
  runOf(i: number): number;
  testSetOf(i: number): number;
  metricOf(i: number): number;
  stepOf(i: number): number;
}

export interface ScoreIndex {
  /** Row numbers, group by group, each group's rows by step (then as read). */
  order: Uint32Array;
  /** Group g's rows are order[start[g]] up to order[start[g + 1]]. */
  start: Uint32Array;
  groupRun: Uint32Array;
  groupMetric: Uint32Array;
  groupTestSet: Uint32Array;
}

/** Past this many (run, metric, test set) combinations the groups are numbered through a map, not an array. */
const DENSE_LIMIT = 1 << 22;

export function scoreIndex(rows: IndexedRows): ScoreIndex {
  const n = rows.length, sets = rows.testSets.length, metrics = rows.metrics.length;
  const keyOf = (i: number) => (rows.runOf(i) * metrics + rows.metricOf(i)) * sets + rows.testSetOf(i);
  const combinations = rows.runs.length * metrics * sets;
  // group number of each key, in key order: a dense table when it fits, else a map of the keys present
  let groupOf: (key: number) => number;
  let keys: number[];
  if (combinations <= DENSE_LIMIT) {
    const seen = new Uint8Array(combinations);
    for (let i = 0; i < n; i++) seen[keyOf(i)] = 1;
    const dense = new Int32Array(combinations).fill(-1);
    keys = [];
    for (let k = 0; k < combinations; k++) if (seen[k]) { dense[k] = keys.length; keys.push(k); }
    groupOf = (key) => dense[key];
  } else {
    const present = new Set<number>();
    for (let i = 0; i < n; i++) present.add(keyOf(i));
    keys = [...present].sort((a, b) => a - b);
    const ids = new Map(keys.map((k, g) => [k, g]));
    groupOf = (key) => ids.get(key)!;
  }
  const groups = keys.length;
  const start = new Uint32Array(groups + 1);
  for (let i = 0; i < n; i++) start[groupOf(keyOf(i)) + 1]++;
  for (let g = 0; g < groups; g++) start[g + 1] += start[g];
  const next = start.slice(0, groups);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[next[groupOf(keyOf(i))]++] = i;
  const groupRun = new Uint32Array(groups), groupMetric = new Uint32Array(groups), groupTestSet = new Uint32Array(groups);
  for (let g = 0; g < groups; g++) {
    const key = keys[g];
    groupTestSet[g] = key % sets;
    groupMetric[g] = Math.floor(key / sets) % metrics;
    groupRun[g] = Math.floor(key / sets / metrics);
    sortByStep(rows, order, start[g], start[g + 1]);
  }
  return { order, start, groupRun, groupMetric, groupTestSet };
}

/** Sorts order[from..to) by step, then by row number; most inputs list a series in step order already. */
function sortByStep(rows: IndexedRows, order: Uint32Array, from: number, to: number): void {
  let sorted = true;
  for (let k = from + 1; k < to && sorted; k++) sorted = rows.stepOf(order[k - 1]) <= rows.stepOf(order[k]);
  if (sorted) return; // counting sort kept the rows of equal steps as read
  order.subarray(from, to).sort((a, b) => rows.stepOf(a) - rows.stepOf(b) || a - b);
}

/**
 * The first score given twice in the order read (a (run, metric, test set, step) seen before) and
 * where it was first given, among the groups `keep` accepts; undefined when none is.
 */
export function firstDuplicate(rows: IndexedRows, index: ScoreIndex, keep: (group: number) => boolean = () => true,
): { row: number; earlier: number } | undefined {
  let found: { row: number; earlier: number } | undefined;
  const { order, start } = index;
  for (let g = 0; g + 1 < start.length; g++) {
    if (!keep(g)) continue;
    for (let k = start[g] + 1; k < start[g + 1]; k++) {
      if (rows.stepOf(order[k]) !== rows.stepOf(order[k - 1])) continue;
      // order[k - 1] is the first of its step only when the one before it differs; the rows after it are later repeats
      if (k - 1 > start[g] && rows.stepOf(order[k - 2]) === rows.stepOf(order[k])) continue;
      if (found === undefined || order[k] < found.row) found = { row: order[k], earlier: order[k - 1] };
    }
  }
  return found;
}

/**
 * The groups' distinct steps when every group has the same ones (the usual table: each test set
 * scored at each checkpoint), else undefined: a group's rows are in step order, so this is one pass
 * over them, where the reading's summary and the series sorted all of a run's steps (the summary's
 * sort alone was 40 of 1080 profiled ms of the cheapest analysis of 30 x 20 x 1000).
 */
export function sameStepsInGroups(rows: IndexedRows, index: ScoreIndex, groups: readonly number[]): Float64Array | undefined {
  const { order, start } = index;
  if (groups.length === 0) return undefined;
  const g = groups[0];
  const steps = new Float64Array(start[g + 1] - start[g]);
  let distinct = 0;
  for (let k = start[g]; k < start[g + 1]; k++) {
    const step = rows.stepOf(order[k]);
    if (distinct === 0 || step !== steps[distinct - 1]) steps[distinct++] = step;
  }
  for (let o = 1; o < groups.length; o++) {
    const other = groups[o];
    let at = -1, previous = Number.NaN;
    for (let k = start[other]; k < start[other + 1]; k++) {
      const step = rows.stepOf(order[k]);
      if (step === previous) continue;
      previous = step;
      if (++at >= distinct || steps[at] !== step) return undefined;
    }
    if (at !== distinct - 1) return undefined;
  }
  return steps.subarray(0, distinct);
}
