// The cells of the realistic-runs simulation (bench/realistic.ts): a quick set that meets each kind
// of trouble once, and the full grid, smaller than the whole product (4 schedules x 3 shapes x 3 n
// x 2 ID x 3 model counts) by varying one thing at a time around the linear, 5-model case:
//   (a) every schedule x n x ID noise, linear, 5 models;  (b) each shape at n 1000 noisy, even and
//   log;  (c) 3, 5 and 8 models at n 1000 noisy even convex;  (d) 28 pairs (8 OOD sets) at n 1000
//   noisy even and log;  (e) the power: a common r 0.5 and a by-model +-0.6, 5 models, n 1000
//   noisy, even and log, convex, and at n 5000 (even): where the scores hold enough of the effect.
// A cell's key names all its settings, so REALISTIC_CELLS can pick cells by any part of it.
import type { StudySpec } from './realistic-runs.ts';
import { SCHEDULES } from './realistic-schedules.ts';

export const cellKey = (c: StudySpec): string =>
  `${c.schedule}/${c.shape}/n${c.n}/${c.idNoisy ? 'noisy' : 'exact'}/k${c.models}/sets${c.oodSets}/${c.truth}` +
  (c.persistence ? `/fixed${c.persistence}` : '') + (c.examples ? '/examples' : '');

const base: StudySpec = { schedule: 'even', shape: 'linear', n: 1000, idNoisy: true, models: 5, oodSets: 2, truth: 'null' };
const cell = (over: Partial<StudySpec>): StudySpec => ({ ...base, ...over });

export const QUICK_CELLS: StudySpec[] = [
  cell({}),
  cell({ idNoisy: false }),
  cell({ n: 250 }),
  cell({ n: 5000 }),
  cell({ schedule: 'log' }),
  cell({ schedule: 'trainer' }),
  cell({ schedule: 'olmo' }),
  cell({ shape: 'convex', idNoisy: false }),
  cell({ schedule: 'log', shape: 'sigmoid', idNoisy: false }),
  cell({ shape: 'convex', models: 8 }),
  cell({ shape: 'convex', oodSets: 8 }),
  cell({ schedule: 'log', shape: 'convex', truth: 'common' }),
  cell({ shape: 'convex', truth: 'by-model' }),
];

function fullGrid(): StudySpec[] {
  const cells: StudySpec[] = [];
  for (const schedule of SCHEDULES) {
    for (const n of [250, 1000, 5000]) for (const idNoisy of [true, false]) cells.push(cell({ schedule, n, idNoisy }));
  }
  const evenAndLog = ['even', 'log'] as const;
  for (const shape of ['linear', 'convex', 'sigmoid'] as const) for (const schedule of evenAndLog) cells.push(cell({ shape, schedule }));
  for (const models of [3, 5, 8]) cells.push(cell({ shape: 'convex', models }));
  for (const schedule of evenAndLog) cells.push(cell({ schedule, oodSets: 8 }));
  for (const truth of ['common', 'by-model'] as const) {
    for (const schedule of evenAndLog) cells.push(cell({ schedule, shape: 'convex', truth }));
    cells.push(cell({ shape: 'convex', truth, n: 5000 }));
  }
  // a fixed test set (the same examples at every checkpoint, answers persisting): the null on the
  // Trainer schedule, where fresh draws leave the most echo, the power cells and the 28 pairs
  for (const truth of ['null', 'common', 'by-model'] as const) {
    cells.push(cell({ schedule: truth === 'null' ? 'trainer' : 'even', shape: truth === 'null' ? 'linear' : 'convex', truth, persistence: 0.9 }));
  }
  // the same with an exact control, and with a control measured on 5000 examples: where the
  // fixed control's errors, not the OOD sets', make the trouble
  for (const over of [{}, { idNoisy: false }, { n: 5000 }]) cells.push(cell({ shape: 'convex', oodSets: 8, persistence: 0.9, ...over }));
  cells.push(cell({ oodSets: 8, persistence: 0.9 }));
  // the control's per-example results known: its errors' covariance estimated from them (fixed and fresh)
  for (const persistence of [0.9, undefined]) {
    for (const over of [{ oodSets: 8 }, { oodSets: 8, shape: 'convex' as const }, { schedule: 'trainer' as const }]) {
      cells.push(cell({ ...over, persistence, examples: true }));
    }
    for (const truth of ['common', 'by-model'] as const) cells.push(cell({ shape: 'convex', truth, persistence, examples: true }));
  }
  return cells;
}

/** Each distinct cell once, in first-seen order. */
function unique(cells: StudySpec[]): StudySpec[] {
  const seen = new Set<string>();
  return cells.filter((c) => !seen.has(cellKey(c)) && seen.add(cellKey(c)) !== undefined);
}

export const ALL_CELLS: StudySpec[] = unique([...fullGrid(), ...QUICK_CELLS]);

/**
 * The cells a REALISTIC_CELLS value names: unset or `quick`, the quick set; `all`, the full grid
 * (with the quick set); otherwise comma-separated terms, each cell whose key contains one of them,
 * where a term `a+b` asks for keys containing both (`log+convex`) and a term `=key` for that key
 * alone (a key is also the start of its fixed-test-set variants' keys).
 */
export function selectCells(filter: string | undefined): StudySpec[] {
  if (filter === undefined || filter === '' || filter === 'quick') return QUICK_CELLS;
  if (filter === 'all') return ALL_CELLS;
  const terms = filter.split(',').map((t) => t.trim()).filter(Boolean);
  return ALL_CELLS.filter((c) => terms.some((t) => (t.startsWith('=') ? cellKey(c) === t.slice(1)
    : t.split('+').every((part) => cellKey(c).includes(part)))));
}
