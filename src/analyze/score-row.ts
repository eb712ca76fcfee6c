// A score as `analyze` reads it, wherever it came from (the store, a long-format CSV / JSONL, a wide
// CSV, lm-evaluation-harness output, a Trainer's trainer_state.json), with where it came from so
// errors can point at it; and the checks every reader applies to a value.
import { UserError } from '../errors.ts';

export interface ScoreRow {
  run: string;
  step: number;
  testSet: string;
  metric: string;
  value: number;
  /** Other columns of the input (model, seed, shots, ...), kept as attributes of the run. */
  attributes: Record<string, string>;
  /** "file:line" or "store" etc.: where this row was read. */
  origin: string;
  /** How many examples the score was computed on, when the input says. */
  n?: number;
  /** The score's standard error as the input gives it (lm-eval's `acc_stderr`). */
  stderr?: number;
}

export const REQUIRED_COLUMNS = ['run', 'step', 'test_set', 'metric', 'value'] as const;
/** Long-table columns giving a score's sample size and standard error, first name preferred. */
export const N_COLUMNS = ['n', 'n_examples', 'samples'] as const;
export const STDERR_COLUMNS = ['stderr', 'se'] as const;
const SAMPLING_COLUMNS: readonly string[] = [...N_COLUMNS, ...STDERR_COLUMNS];

/**
 * Metrics that are fractions in [0, 1] wherever genstudy or lm-evaluation-harness writes them; a
 * value outside is a percentage or a wrong column, never a score. Names are compared without an
 * lm-eval filter suffix (",none") and in lower case.
 */
const FRACTION_METRICS = new Set([
  'accuracy', 'acc', 'acc_norm', 'f1', 'macro_f1', 'exact_match', 'em', 'precision', 'recall',
  'rouge1', 'rouge2', 'rougel', 'rougelsum', 'pct_stereotype',
]);

export function isFractionMetric(metric: string): boolean {
  return FRACTION_METRICS.has(metric.split(',')[0].toLowerCase());
}

/** A value as pandas writes a missing one: an empty cell, NaN (any case) or null. */
export function isMissingValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'number') return Number.isNaN(v);
  return typeof v === 'string' && /^\s*(nan|)\s*$/i.test(v);
}

/** Rejects a value a metric cannot take (an accuracy of 1.7); `origin` names where it was read. */
export function checkValueRange(metric: string, value: number, origin: string): void {
  if (isFractionMetric(metric) && (value < 0 || value > 1)) {
    throw new UserError(`${origin}: ${metric} ${value} is outside [0, 1] (give ${metric} as a fraction, e.g. 0.83 rather than 83)`);
  }
}

/**
 * Validates one long-format record (columns run, step, test_set, metric, value; any others become
 * run attributes). `origin` is "file:line" for the error messages. A missing value (empty, NaN) is
 * an error here: readers that treat it as a missing score test isMissingValue first.
 */
export function scoreRowFromRecord(values: Record<string, unknown>, origin: string): ScoreRow {
  for (const column of REQUIRED_COLUMNS) {
    const v = values[column];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
      throw new UserError(`${origin}: column "${column}" is missing or empty (expected columns: ${REQUIRED_COLUMNS.join(', ')})`);
    }
  }
  const step = parseStep(values.step, origin, 'column "step"');
  const value = parseDecimal(values.value, origin, 'column "value"');
  const metric = String(values.metric);
  checkValueRange(metric, value, origin);
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if ((REQUIRED_COLUMNS as readonly string[]).includes(k) || SAMPLING_COLUMNS.includes(k) || v === undefined || v === null || v === '') continue;
    attributes[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  const row: ScoreRow = { run: String(values.run), step, testSet: String(values.test_set), metric, value, attributes, origin };
  const nColumn = N_COLUMNS.find((c) => !isMissingValue(values[c]));
  if (nColumn) row.n = parseSampleSize(values[nColumn], origin, `column "${nColumn}"`);
  const seColumn = STDERR_COLUMNS.find((c) => !isMissingValue(values[c]));
  if (seColumn) row.stderr = parseStderr(values[seColumn], origin, `column "${seColumn}"`);
  return row;
}

/** A score's sample size: a whole number >= 1; missing (empty, NaN) gives undefined. */
export function parseSampleSize(v: unknown, origin: string, what: string): number | undefined {
  if (isMissingValue(v)) return undefined;
  const n = parseDecimal(v, origin, what);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${origin}: ${what}: expected a whole number of examples >= 1, got ${JSON.stringify(v)}`);
  return n;
}

/** A standard error: finite and >= 0; missing (empty, NaN, lm-eval's "N/A") gives undefined. */
export function parseStderr(v: unknown, origin: string, what: string): number | undefined {
  if (isMissingValue(v) || (typeof v === 'string' && /^\s*n\/a\s*$/i.test(v))) return undefined;
  const se = parseDecimal(v, origin, what);
  if (se < 0) throw new UserError(`${origin}: ${what}: expected a standard error >= 0, got ${JSON.stringify(v)}`);
  return se;
}

/** Decimal notation only: Number() would also take "0x10", "0b1", "Infinity" and " ". */
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export function parseDecimal(v: unknown, origin: string, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && DECIMAL.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new UserError(`${origin}: ${what}: expected a finite number, got ${JSON.stringify(v)}`);
  return n;
}

export function parseStep(v: unknown, origin: string, what: string): number {
  const step = parseDecimal(v, origin, what);
  if (!Number.isInteger(step) || step < 0) throw new UserError(`${origin}: ${what}: expected a whole number >= 0, got ${JSON.stringify(v)}`);
  return step;
}
