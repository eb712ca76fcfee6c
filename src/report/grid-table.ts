// A grid as HTML tables that fit the page: rows named by label columns, one value column per
// entry of the other axis. A page has no scripts to measure itself, so a table cannot shrink to
// the window; instead no table gets more value columns than fit an 800 px page, and a wider grid
// is split into chunks of columns (of even size), each a table with the row labels repeated. The
// caller puts the longer axis down the page (gridOrientation), so most grids need one table.

/** A grid: what names each row (one cell per label column), each column's header, and each cell. */
export interface Grid {
  /** Header text of the label columns (HTML). */
  rowTitles: string[];
  /** Per row, its label cells (HTML, as many as rowTitles). */
  rows: string[][];
  /** Per value column, its header (HTML). */
  columns: string[];
  /** The <td> of row r, column c (whole element, so the caller sets its class and title). */
  cell(row: number, column: number): string;
}

/**
 * Value columns that fit an 800 px page beside two label columns: a cell of two numbers on two
 * lines ("0.812" over "(+0.123)") is ~66 px at the narrow page's table font, the page's box 744 px.
 */
export const MAX_GRID_COLUMNS = 7;

/**
 * Which of two axes runs across: the shorter, so a grid of 18 test sets by 7 settings is 18
 * rows of 7 columns rather than 7 rows of 18 columns in three chunks.
 */
export function gridOrientation(down: number, across: number): 'as-is' | 'transposed' {
  return across > down && across > MAX_GRID_COLUMNS ? 'transposed' : 'as-is';
}

/** Column ranges [from, to) of at most `max` columns each, as even as the count allows. */
export function columnChunks(count: number, max = MAX_GRID_COLUMNS): [number, number][] {
  if (count === 0) return [[0, 0]];
  const chunks = Math.ceil(count / max);
  const size = Math.ceil(count / chunks);
  const out: [number, number][] = [];
  for (let from = 0; from < count; from += size) out.push([from, Math.min(count, from + size)]);
  return out;
}

/** The grid as one table per chunk of columns; `caption` names each chunk when there are several. */
export function gridTables(grid: Grid, opts: { className: string; max?: number }): string {
  const chunks = columnChunks(grid.columns.length, opts.max);
  return chunks.map(([from, to]) => {
    const part = chunks.length > 1
      ? `<caption class="small">columns ${from + 1}–${to} of ${grid.columns.length}</caption>` : '';
    const head = `<tr>${grid.rowTitles.map((t) => `<th>${t}</th>`).join('')}` +
      `${grid.columns.slice(from, to).map((c) => `<th>${c}</th>`).join('')}</tr>`;
    const body = grid.rows.map((labels, r) => {
      const cells: string[] = [];
      for (let c = from; c < to; c++) cells.push(grid.cell(r, c));
      return `<tr>${labels.map((l) => `<td class="name">${l}</td>`).join('')}${cells.join('')}</tr>`;
    });
    return `<div class="table-wrap"><table class="grid ${opts.className}">${part}\n<thead>${head}</thead>\n` +
      `<tbody>\n${body.join('\n')}\n</tbody>\n</table></div>`;
  }).join('\n');
}
