/**
 * An error caused by the user's input (a file, a flag, a setting). The CLI prints its message
 * alone, so the message must name the file, the line or field, and what was expected.
 */
export class UserError extends Error {
  override name = 'UserError';
}

/** Formats "file:line:column" the way editors and compilers do, leaving out what is unknown. */
export function where(file: string, line?: number, column?: number | string): string {
  let s = file;
  if (line !== undefined) s += `:${line}`;
  if (column !== undefined) s += typeof column === 'number' ? `:${column}` : ` (column "${column}")`;
  return s;
}
