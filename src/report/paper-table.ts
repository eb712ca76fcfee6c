// A table as a paper shows it: cells already formatted as text (numbers rounded, intervals as one
// cell), so the LaTeX and the Markdown forms (latex-table.ts, markdown-table.ts) print the same
// figures. The report's CSV and JSON keep full precision; this is the shape for reading.

export interface PaperColumn {
  header: string;
  /** The header in LaTeX, where it needs mathematics (tau, I squared); otherwise `header`, escaped. */
  latexHeader?: string;
  /** Numbers (and intervals of numbers): right-aligned, and set in math mode in LaTeX so a minus is a minus. */
  numeric?: boolean;
}

/** A cell's text (null: no value); `strong` cells are set in bold. */
export type PaperCell = string | null | { text: string; strong: true };

export interface PaperTable {
  /** File stem: `<name>.tex`, `<name>.md`; named after the report's section it comes from. */
  name: string;
  title: string;
  /** What a row is and what the numbers mean: the caption. */
  description: string;
  columns: PaperColumn[];
  rows: PaperCell[][];
}

/** What missing values are printed as, in every form. */
export const MISSING = '–';

/** The title as the caption's first sentence: a full stop added unless it ends with its own (a question's "?"). */
export function titleSentence(title: string): string {
  return /[.?!]$/.test(title) ? title : `${title}.`;
}

export function cellText(cell: PaperCell): string | null {
  return cell === null || typeof cell === 'string' ? cell : cell.text;
}

export function isStrong(cell: PaperCell): boolean {
  return cell !== null && typeof cell !== 'string';
}

/** A number to `digits` decimals with an ASCII minus (LaTeX's math mode and Markdown both read it), or null. */
export function decimal(x: number | null | undefined, digits: number): string | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const t = x.toFixed(digits);
  return Number(t) === 0 ? t.replace(/^-/, '') : t;
}

/** An interval as one cell, "[-0.123, 0.456]", or null. */
export function interval(range: readonly [number, number] | null | undefined, digits: number): string | null {
  if (!range) return null;
  const [lo, hi] = [decimal(range[0], digits), decimal(range[1], digits)];
  return lo === null || hi === null ? null : `[${lo}, ${hi}]`;
}
