// Spreadsheets run a cell that begins with =, +, -, @ (or a tab or carriage return, which some of
// them skip before looking) as a formula, so a run or test-set name taken from an input file could
// run as one when a written table is opened (OWASP, "CSV Injection"). Such text cells are written
// with a leading ' (which spreadsheets show as text and hide), and genstudy's own readers take the
// ' off again, so a table reads back unchanged. A number, even a negative one, stays a number.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function looksLikeFormula(text: string): boolean {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text);
}

/** A text cell as it is written: with a leading ' when a spreadsheet would run it as a formula. */
export function neutraliseFormula(text: string): string {
  return looksLikeFormula(text) ? `'${text}` : text;
}

/** A cell as genstudy wrote it, read back: the ' that neutraliseFormula added taken off again. */
export function restoreFormula(text: string): string {
  return text.startsWith("'") && looksLikeFormula(text.slice(1)) ? text.slice(1) : text;
}
