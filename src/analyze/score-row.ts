// A score as `analyze` reads it, wherever it came from (the store, a long-format CSV / JSONL,
// lm-evaluation-harness output), with where it came from so errors can point at it.
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
}

export const REQUIRED_COLUMNS = ['run', 'step', 'test_set', 'metric', 'value'] as const;

/**
 * Validates one long-format record (columns run, step, test_set, metric, value; any others become
 * run attributes). `origin` is "file:line" for the error messages.
 */
export function scoreRowFromRecord(values: Record<string, unknown>, origin: string): ScoreRow {
  for (const column of REQUIRED_COLUMNS) {
    const v = values[column];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
      throw new UserError(`${origin}: column "${column}" is missing or empty (expected columns: ${REQUIRED_COLUMNS.join(', ')})`);
    }
  }
  const step = toNumber(values.step, origin, 'step');
  if (!Number.isInteger(step) || step < 0) throw new UserError(`${origin}: column "step": expected a whole number >= 0, got ${JSON.stringify(values.step)}`);
  const value = toNumber(values.value, origin, 'value');
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if ((REQUIRED_COLUMNS as readonly string[]).includes(k) || v === undefined || v === null || v === '') continue;
    attributes[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return { run: String(values.run), step, testSet: String(values.test_set), metric: String(values.metric), value, attributes, origin };
}

function toNumber(v: unknown, origin: string, column: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new UserError(`${origin}: column "${column}": expected a finite number, got ${JSON.stringify(v)}`);
  return n;
}
