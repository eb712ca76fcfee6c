/**
 * An error caused by the user's input (a file, a flag, a setting). The CLI prints its message
 * alone, so the message must name the file, the line or field, and what was expected.
 */
export class UserError extends Error {
  override name = 'UserError';
  /** Where the problem is, when it is in a file (the message says it too; callers read these). */
  readonly file?: string;
  readonly line?: number;
  /** The field (study-file path like "evaluation.testSets[2]", a column, a flag). */
  readonly field?: string;

  constructor(message: string, at: { file?: string; line?: number; field?: string } = {}) {
    super(message);
    if (at.file !== undefined) this.file = at.file;
    if (at.line !== undefined) this.line = at.line;
    if (at.field !== undefined) this.field = at.field;
  }
}

/** Formats "file:line:column" the way editors and compilers do, leaving out what is unknown. */
export function where(file: string, line?: number, column?: number | string): string {
  let s = file;
  if (line !== undefined) s += `:${line}`;
  if (column !== undefined) s += typeof column === 'number' ? `:${column}` : ` (column "${column}")`;
  return s;
}
