// A report table: named columns and rows of plain values. The same object becomes an HTML table,
// a CSV file (RFC 4180 quoting, empty cell for a missing value) and a JSON array of row objects,
// so the three never disagree; its CSV is written as the analysis writes its own (analyze/text-cells.ts).
import { csvParts, csvText } from '../analyze/text-cells.ts';

export type Cell = string | number | boolean | null;

export interface Table {
  /** File stem: `<name>.csv`, `<name>.json`. */
  name: string;
  title: string;
  /** One sentence on what a row is. */
  description: string;
  columns: string[];
  rows: Cell[][];
}

export function tableToCsv(table: Table): string {
  return csvText(table.columns, table.rows);
}

/** The CSV in parts, as writeReport writes it (scores.csv has a row per score: 15M at a sweep's size). */
export function tableToCsvParts(table: Table): Iterable<string> {
  return csvParts(table.columns, table.rows);
}

export function tableToJson(table: Table): Record<string, Cell>[] {
  return table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => [c, row[i] ?? null])));
}

