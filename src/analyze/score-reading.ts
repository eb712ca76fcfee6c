// What a reader hands `analyze` and `report`: the score rows, a sentence saying what it took as run,
// step, test set and metric (so a user sees at once when a layout was read wrongly), and notes about
// what it left out or what looks off; a Trainer folder also hands on its training loss, which the
// report draws as the store's training log.
import type { TrainingLogRecord } from '../store/result-store.ts';
import type { ScoreRow } from './score-row.ts';
import type { ScoreColumns } from './score-columns.ts';
import type { ExampleResultSource } from './example-results.ts';
import { samplingSummary } from './sampling-summary.ts';
import { sortedRunNames } from './run-order.ts';
import { sameStepsInGroups } from './score-index.ts';

export interface ScoreReading {
  /** The scores as columns (score-columns.ts): what the analysis and the report read. */
  scores: ScoreColumns;
  /** The scores as row objects, made on first use and kept: for library callers (at 15M scores they take ~13 GB). */
  readonly rows: ScoreRow[];
  /** How the input was read, e.g. "lm-evaluation-harness 0.3 output, 27 file(s); run from the folder path, step from the file name". */
  description: string;
  notes: string[];
  /** The training log (loss, learning rate, gradient norm per logged step) where the input has one: a Trainer's log_history. */
  trainingLog?: TrainingLogRecord[];
  /** The per-example results behind the scores, where the input holds them (example-results.ts). */
  exampleResults?: ExampleResultSource;
}

/** A reading of these parts, its `rows` made from the columns when first asked for (not enumerable: a spread copies the columns only). */
export function scoreReading(parts: Omit<ScoreReading, 'rows'>): ScoreReading {
  let rows: ScoreRow[] | undefined;
  const reading = { ...parts } as ScoreReading;
  Object.defineProperty(reading, 'rows', { get: () => (rows ??= parts.scores.rows()), enumerable: false });
  return reading;
}

/**
 * One paragraph: how the input was read, then what came out (runs, steps, test sets, metrics, and
 * where the scores' sampling variances come from when anything gives them).
 */
export function summarizeReading(input: string, reading: ScoreReading, sampleSize?: number): string {
  const { scores } = reading;
  if (scores.length === 0) return `${input}: ${reading.description}: no scores`;
  const runs = sortedRunNames(scores.runs);
  const sets = [...scores.testSets].sort();
  const metrics = [...scores.metrics].sort();
  const perRun = distinctStepsPerRun(scores);
  let first = Infinity, last = -Infinity;
  for (const steps of perRun.values()) {
    first = Math.min(first, steps[0]);
    last = Math.max(last, steps[steps.length - 1]);
  }
  const counts = runs.map((run) => perRun.get(run)!.length);
  const sampling = samplingSummary(scores, sampleSize);
  const list = (xs: string[], n = 6) => `${xs.slice(0, n).join(', ')}${xs.length > n ? `, ... (${xs.length})` : ''}`;
  return `${input}: ${reading.description}: ${scores.length} scores; ${runs.length} run(s) (${list(runs, 4)}); `
    + `steps ${first}-${last} `
    + `(${Math.min(...counts)}${Math.max(...counts) !== Math.min(...counts) ? `-${Math.max(...counts)}` : ''} per run); `
    + `${sets.length} test set(s) (${list(sets)}); metrics ${list(metrics)}`
    + (sampling === undefined ? '' : `; ${sampling}`);
}

/** Each run's distinct steps, sorted, from the index's groups (one sort per run: a filter per run was quadratic, 18 s at 300 runs). */
function distinctStepsPerRun(scores: ScoreColumns): Map<string, Float64Array> {
  const index = scores.index();
  const { order, start, groupRun } = index;
  const out = new Map<string, Float64Array>();
  for (let g = 0; g < groupRun.length;) {
    let h = g;
    while (h < groupRun.length && groupRun[h] === groupRun[g]) h++;
    const groups = Array.from({ length: h - g }, (_, k) => g + k);
    out.set(scores.runs[groupRun[g]], sameStepsInGroups(scores, index, groups) ?? allDistinctSteps(scores, order, start, g, h));
    g = h;
  }
  return out;
}

function allDistinctSteps(scores: ScoreColumns, order: Uint32Array, start: Uint32Array, g: number, h: number): Float64Array {
  const steps = new Float64Array(start[h] - start[g]);
  for (let k = start[g]; k < start[h]; k++) steps[k - start[g]] = scores.stepOf(order[k]);
  steps.sort();
  let distinct = 0;
  for (let k = 0; k < steps.length; k++) if (k === 0 || steps[k] !== steps[k - 1]) steps[distinct++] = steps[k];
  return steps.subarray(0, distinct);
}
