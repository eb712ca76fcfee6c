// A paper table as a LaTeX table float with booktabs rules (\toprule, \midrule, \bottomrule), to
// \input into a paper. Names come from input files, so every character LaTeX gives a meaning to is
// escaped, and control characters are written visibly (\x1b), as on the terminal; numbers are set
// in math mode so a minus is a minus. A table wider than the line is shrunk to it (graphicx's
// \resizebox), so nine columns of numbers fit a paper's column. Needs \usepackage{booktabs} and graphicx.
import { terminalSafe } from '../terminal-safe.ts';
import { cellText, isStrong, titleSentence, type PaperCell, type PaperTable } from './paper-table.ts';

const SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '{': '\\{', '}': '\\}',
  '~': '\\textasciitilde{}', '^': '\\textasciicircum{}',
  // not special to TeX, but the default (OT1) font encoding prints other glyphs in their places (¡ ¿ —)
  '<': '\\textless{}', '>': '\\textgreater{}', '|': '\\textbar{}', '`': '\\textasciigrave{}',
};

// The report's own symbols (in captions, verdict marks, numbers), which LaTeX's utf8 input does not
// set up, as the mathematics that draws them; other letters are left to the document's input encoding.
// \ensuremath, so that they set the same in text and in a number cell's math.
const SYMBOLS: Record<string, string> = Object.fromEntries(Object.entries({
  '−': '-', '±': '\\pm', '≠': '\\neq', '✓': '\\surd', '○': '\\circ', '²': '^2', 'τ': '\\tau', '×': '\\times',
  '≤': '\\leq', '≥': '\\geq',
}).map(([c, math]) => [c, `\\ensuremath{${math}}`]));

/** `text` as LaTeX text: each special character escaped; "--" and "''" kept from becoming a dash or a quote. */
export function escapeLatex(text: string): string {
  return terminalSafe(text)
    .replace(/[\\&%$#_{}~^<>|`]/g, (c) => SPECIAL[c])
    .replace(/-(?=-)/g, '-{}')
    .replace(/'(?=')/g, "'{}")
    .replace(/[−±≠✓○²τ×≤≥]/g, (c) => SYMBOLS[c]);
}

/** A number cell in math mode: 1.2e-5 as 1.2 x 10^-5, spaces kept. */
function latexNumber(text: string, strong: boolean): string {
  const body = escapeLatex(text)
    .replace(/(\d)e([+-]?)0*(\d+)/g, (_m, d: string, sign: string, exp: string) => `${d}\\times10^{${sign === '-' ? '-' : ''}${exp}}`)
    .replace(/ /g, '\\ ');
  return strong ? `$\\mathbf{${body}}$` : `$${body}$`;
}

function latexCell(cell: PaperCell, numeric: boolean): string {
  const text = cellText(cell);
  if (text === null) return '--';
  if (numeric) return latexNumber(text, isStrong(cell));
  return isStrong(cell) ? `\\textbf{${escapeLatex(text)}}` : escapeLatex(text);
}

export function tableToLatex(table: PaperTable): string {
  const spec = table.columns.map((c) => (c.numeric ? 'r' : 'l')).join('');
  const row = (cells: string[]) => `${cells.join(' & ')} \\\\`;
  return [
    `% ${terminalSafe(table.title)}: written by genstudy report --figures. Needs \\usepackage{booktabs} and \\usepackage{graphicx}.`,
    '\\begin{table}[htbp]',
    '\\centering',
    '\\small',
    `\\caption{${escapeLatex(titleSentence(table.title))} ${escapeLatex(table.description)}}`,
    `\\label{tab:${table.name}}`,
    '\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%',
    `\\begin{tabular}{${spec}}`,
    '\\toprule',
    row(table.columns.map((c) => c.latexHeader ?? escapeLatex(c.header))),
    '\\midrule',
    ...table.rows.map((cells) => row(cells.map((cell, i) => latexCell(cell, table.columns[i].numeric === true)))),
    '\\bottomrule',
    '\\end{tabular}}',
    '\\end{table}',
    '',
  ].join('\n');
}
