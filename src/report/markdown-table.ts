// A paper table as a Markdown (GitHub / CommonMark) pipe table under its caption. Names come from
// input files, so each character that would end a cell (|), start markup (* _ ` [ ] ~ $) or HTML
// (< > &) is backslash-escaped, and control characters are written visibly (\x1b), as on the
// terminal: a name cannot add a column, format the row or put a tag into a page that renders it.
import { terminalSafe } from '../terminal-safe.ts';
import { cellText, isStrong, MISSING, titleSentence, type PaperCell, type PaperTable } from './paper-table.ts';

/** `text` as Markdown inline text that renders as itself. */
export function escapeMarkdown(text: string): string {
  return terminalSafe(text).replace(/[\\`*_[\]<>|~&$]/g, (c) => `\\${c}`);
}

// A number or an interval of numbers needs no escaping: its brackets start no link.
const NUMBER = /^[\d\s.,+\-[\]()%e]*$/;

function markdownCell(cell: PaperCell, numeric: boolean): string {
  const text = cellText(cell);
  if (text === null) return MISSING;
  const shown = numeric && NUMBER.test(text) ? text : escapeMarkdown(text);
  return isStrong(cell) ? `**${shown}**` : shown;
}

export function tableToMarkdown(table: PaperTable): string {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `**${escapeMarkdown(titleSentence(table.title))}** ${escapeMarkdown(table.description)}`,
    '',
    row(table.columns.map((c) => escapeMarkdown(c.header))),
    row(table.columns.map((c) => (c.numeric ? '---:' : '---'))),
    ...table.rows.map((cells) => row(cells.map((cell, i) => markdownCell(cell, table.columns[i].numeric === true)))),
    '',
  ].join('\n');
}
