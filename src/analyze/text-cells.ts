// How the analysis's numbers and cells are written as text, one rule for the terminal tables, the
// verdicts' reasons, the CSV files (`analyze --format csv`, a study's analysis/*.csv) and the
// report's tables and CSV exports, so that one number never reads two ways.
import { neutraliseFormula } from '../csv-formula.ts';

/** A p-value to 4 decimals, or in exponent form below 1e-4, where 4 decimals would read 0.0000. */
export function pValueText(p: number): string {
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}

/** A 95% interval, to 3 decimals. */
export function intervalText(c: readonly [number, number]): string {
  return `[${c[0].toFixed(3)}, ${c[1].toFixed(3)}]`;
}

/**
 * One CSV cell (RFC 4180 quoting): a missing value, or a number that is not finite (NaN reads back
 * as a number in no CSV reader), is an empty cell; a number is written in full precision (the
 * shortest text that reads back as the same double); text a spreadsheet would run as a formula
 * gets a leading ' (csv-formula.ts).
 */
export function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number' && !Number.isFinite(v)) return '';
  const s = typeof v === 'string' ? neutraliseFormula(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows per part of csvParts: a part stays well under a string's length limit whatever the row. */
const ROWS_PER_PART = 1000;

/**
 * A header and rows as CSV text in parts (the header line, then a thousand lines at a time, each
 * line ended by a newline), iterable again and again: a table of millions of rows is written part
 * by part (atomic-write.ts writeContents), never made one string.
 */
export function csvParts(columns: readonly string[], rows: readonly (readonly unknown[])[]): Iterable<string> {
  const line = (cells: readonly unknown[]) => `${cells.map(csvCell).join(',')}\n`;
  return {
    *[Symbol.iterator]() {
      yield line(columns);
      for (let i = 0; i < rows.length; i += ROWS_PER_PART) yield rows.slice(i, i + ROWS_PER_PART).map(line).join('');
    },
  };
}

/** A header and rows as CSV text, each line ended by a newline. */
export function csvText(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [...csvParts(columns, rows)].join('');
}
