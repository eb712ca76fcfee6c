/**
 * An error caused by the user's input (a file, a flag, a setting, a server). The CLI prints its
 * message alone, so the message must name the file, the line or field, and what was expected.
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

/**
 * The CLI's exit codes, one scheme for every command (docs: README "Exit codes"). A command-line
 * mistake and a bad file are both the user's to fix and both get one line naming what is wrong,
 * so they share a code; an unexpected failure prints its stack frames and exits 1 (Node's own
 * code for an uncaught error), which is what a bug report needs.
 */
export const EXIT = {
  ok: 0,
  /** genstudy failed unexpectedly (a bug): its stack frames on stderr. */
  failure: 1,
  /** What was asked cannot be done as given: a flag, a value, a file, a model, a server; one line says which. */
  userError: 2,
  /** Stopped by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
} as const;

/**
 * A file the user named that cannot be read, in one wording wherever genstudy reads one:
 * "FILE: cannot read [the WHAT] (ENOENT)", the system's code when there is one.
 */
export function unreadable(file: string, err: unknown, what?: string): UserError {
  const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new UserError(`${file}: cannot read${what ? ` the ${what}` : ''} (${reason})`, { file });
}

/** Formats "file:line:column" the way editors and compilers do, leaving out what is unknown. */
export function where(file: string, line?: number, column?: number | string): string {
  let s = file;
  if (line !== undefined) s += `:${line}`;
  if (column !== undefined) s += typeof column === 'number' ? `:${column}` : ` (column "${column}")`;
  return s;
}
