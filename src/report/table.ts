// A report table: named columns and rows of plain values. The same object becomes an HTML table,
// a CSV file (RFC 4180 quoting, empty cell for a missing value) and a JSON array of row objects,
// so the three never disagree.

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
  const lines = [table.columns.map(csvCell).join(',')];
  for (const row of table.rows) lines.push(row.map(csvCell).join(','));
  return lines.join('\n') + '\n';
}

export function tableToJson(table: Table): Record<string, Cell>[] {
  return table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => [c, row[i] ?? null])));
}

function csvCell(v: Cell | undefined): string {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'number' ? numberText(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Full precision in files (the shortest text that reads back as the same double). */
function numberText(x: number): string {
  return Number.isFinite(x) ? String(x) : '';
}
