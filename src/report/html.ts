// Building blocks of the report page: the page skeleton with its inline style sheet, tables,
// figures and number formats. Everything here returns HTML strings; every piece of text passes
// through escapeHtml, numbers through the formatters. The page has no scripts and loads nothing.
import { escapeHtml } from './escape.ts';
import type { Cell, Table } from './table.ts';
import { pValueText } from '../analyze/text-cells.ts';

export const STYLE = `
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  margin: 0; color: #1b1b1b; background: #fafafa; line-height: 1.45; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; background: white; }
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.3rem; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e3e3e3; }
h3 { font-size: 1.1rem; margin: 26px 0 6px; }
h4 { font-size: 0.98rem; margin: 16px 0 6px; }
p.meta, p.note, figcaption, .small { color: #555; font-size: 0.88rem; }
p.headline { font-size: 1.12rem; background: #f1f5fb; border-left: 4px solid #3c6fb0; padding: 10px 14px; margin: 12px 0; }
nav ul { columns: 3; font-size: 0.9rem; padding-left: 18px; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 6px 0 14px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
table .small { font-size: 0.85em; font-weight: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.code, code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.8rem; }
td.code { overflow-wrap: anywhere; max-width: 420px; }
pre { background: #f6f6f6; border: 1px solid #e3e3e3; padding: 10px; overflow: auto; max-height: 420px; max-width: 100%;
  box-sizing: border-box; white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 10px 0 16px; max-width: 100%; box-sizing: border-box; }
figure svg { max-width: 100%; height: auto; display: block; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.charts > * { min-width: 0; max-width: 100%; }
.table-wrap { max-width: 100%; overflow-x: auto; }
.table-wrap td:not(.code):not(.wrap):not(.name) { white-space: nowrap; }
td.wrap { min-width: 22em; }
td.name { min-width: 6em; }
td.name .nm { display: inline-block; }
/* names (test sets, runs: "crows_pairs_english_disability" has no hyphen to break at) and a grid's
   headers break anywhere rather than widen a table past the page; where there is room they stay whole */
td.name, table.grid th { overflow-wrap: anywhere; }
table.grid caption { text-align: left; }
td.wrap .item { white-space: nowrap; }
.interval { white-space: normal; }
.interval > span { white-space: nowrap; }
/* a narrow page: smaller table text, and long lists and names wrap rather than widen the table */
@media (max-width: 900px) { td.wrap { min-width: 10em; } td.wrap .item { white-space: normal; overflow-wrap: anywhere; }
  table { font-size: 0.8rem; } th, td { padding: 3px 5px; } }
dl.run-summary { display: flex; flex-wrap: wrap; gap: 4px 22px; margin: 4px 0 12px; font-size: 0.92rem; }
dl.run-summary div { display: flex; gap: 6px; }
dl.run-summary dt { color: #666; }
dl.run-summary dd { margin: 0; font-weight: 500; }
table.kv td:first-child { color: #555; white-space: nowrap; }
.verdict-positive-in-all { background: #dbe9f7; }
.verdict-negative-in-all { background: #f8dcdc; }
.verdict-sign-differs { background: #fff0c2; font-weight: 600; }
.meta-holds { background: #dbe9f7; }
.meta-varies { background: #fff0c2; }
.meta-negligible { background: #eeeeee; }
.meta-holds .verdict, .meta-varies .verdict { font-weight: 600; }
td .why { display: block; white-space: normal; color: #555; font-size: 0.85em; }
.outcome-recovered { background: #dff3df; }
.outcome-missed, .outcome-spurious { background: #fff0c2; }
.outcome-wrong-sign { background: #f8dcdc; font-weight: 600; }
.role-in-domain { background: #eef4ea; }
.role-cross-domain { background: #f6f3e8; }
.role-cross-task { background: #f3eef6; }
.sig { font-weight: 600; }
article.run { border-top: 1px solid #eee; }
details.pairs > summary { cursor: pointer; color: #3c6fb0; font-size: 0.9rem; margin: 4px 0 10px; }
`;

export function page(title: string, body: string): string {
  return pageStart(title) + body + PAGE_END;
}

/** The page up to its body: what `page` puts before the body (a report written in parts writes it first). */
export function pageStart(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
`;
}

/** The page after its body. */
export const PAGE_END = `
</main>
</body>
</html>
`;

export function esc(text: string): string {
  return escapeHtml(text);
}

/** An HTML table of some of a Table's columns, with optional per-row class and per-cell format. */
export function htmlTable(
  table: Pick<Table, 'columns' | 'rows'>,
  opts: {
    columns?: string[]; headers?: Record<string, string>; rowClass?: (row: Cell[]) => string | undefined;
    format?: Record<string, (v: Cell, row: Cell[]) => string>;
    code?: string[];
    /** Columns whose text wraps (the others keep each cell on one line and the table scrolls). */
    wrap?: string[];
    /** Columns of names that may break after a hyphen (test sets, runs), so the table fits a narrow page. */
    names?: string[];
  } = {},
): string {
  const columns = opts.columns ?? table.columns;
  const index = columns.map((c) => {
    const i = table.columns.indexOf(c);
    if (i < 0) throw new Error(`report table has no column "${c}"`);
    return i;
  });
  const head = `<tr>${columns.map((c) => `<th>${esc(opts.headers?.[c] ?? c)}</th>`).join('')}</tr>`;
  const body = table.rows.map((row) => {
    const cls = opts.rowClass?.(row);
    const cells = columns.map((c, j) => {
      const v = row[index[j]];
      const text = opts.format?.[c] ? opts.format[c](v, row) : esc(cellText(v));
      const klass = typeof v === 'number' ? 'num'
        : opts.code?.includes(c) ? 'code'
        : opts.wrap?.includes(c) ? 'wrap'
        : opts.names?.includes(c) ? 'name' : '';
      return `<td${klass ? ` class="${klass}"` : ''}>${text}</td>`;
    });
    return `<tr${cls ? ` class="${esc(cls)}"` : ''}>${cells.join('')}</tr>`;
  });
  // Wrapped so that a wide table scrolls inside the page instead of widening it.
  return `<div class="table-wrap"><table>\n<thead>${head}</thead>\n<tbody>\n${body.join('\n')}\n</tbody>\n</table></div>`;
}

/**
 * A pair of test sets in one cell: the line breaks between the two names first, inside a name (after a hyphen) only when one name is wider
 * than the column.
 */
export function pairCell(a: string, b: string): string {
  return `<bdi class="nm">${esc(a)}</bdi> – <bdi class="nm">${esc(b)}</bdi>`;
}

/** A chart with its caption; `data` adds data-* attributes (what a reader's tools or the tests look the figure up by). */
export function figure(svg: string, caption: string, kind: string, data: Record<string, string> = {}): string {
  // As wide as its chart (captions wrap under it, charts sit side by side), never wider than the page.
  const width = /^<svg[^>]*\swidth="(\d+(?:\.\d+)?)"/.exec(svg)?.[1];
  const style = width ? ` style="width: ${width}px"` : '';
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join('');
  return `<figure class="chart" data-chart="${esc(kind)}"${attrs}${style}>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

export function cellText(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : fixed(v, 4);
  return String(v);
}

export function fixed(x: number | null | undefined, digits: number): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

export function signed(x: number | null | undefined, digits: number): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const t = x.toFixed(digits);
  return Number(t) > 0 ? `+${t}` : Number(t) === 0 ? t.replace(/^-/, '') : t.replace(/^-/, '−');
}

/**
 * An interval as one cell, "[−0.97, +0.23]": on a narrow page it may break after the comma (each
 * bound stays whole), so two interval columns do not push a table past the page.
 */
export function intervalCell(lo: number | null | undefined, hi: number | null | undefined, digits = 2): string {
  if (lo === null || lo === undefined) return '–';
  return `<span class="interval"><span>[${signed(lo, digits)},</span> <span>${signed(hi, digits)}]</span></span>`;
}

export function pValue(p: number | null | undefined): string {
  return p === null || p === undefined ? '–' : pValueText(p);
}

/** An id for an element, made from free text: letters, digits and dashes, unique by the index. */
export function anchor(prefix: string, text: string, index: number): string {
  return `${prefix}-${index}-${text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40)}`;
}
