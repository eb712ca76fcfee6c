// Failures of the machine rather than of genstudy: a full disk, a read-only or forbidden place, a
// file where a folder is needed. The user fixes them (free space, another folder, permissions), so the CLI reports them as it reports a
// user error, in one line with exit 2, not as a bug with a stack trace. Node's file errors carry an
// errno code and the path; better-sqlite3's carry SQLite's extended result code
// (https://www.sqlite.org/rescode.html) and no path.

type Coded = Error & { code?: unknown; path?: unknown; cause?: unknown };

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const READ_ONLY = new Set(['EROFS', 'SQLITE_READONLY']);
const FORBIDDEN = new Set(['EACCES', 'EPERM', 'SQLITE_PERM', 'SQLITE_AUTH']);

/** The one line to print for an error of the environment (searching its causes too), or undefined for any other error. */
export function environmentProblem(err: unknown): string | undefined {
  for (let e = err as Coded | undefined, depth = 0; e instanceof Error && depth < 5; e = e.cause as Coded | undefined, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    const base = code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1');
    const at = typeof e.path === 'string' ? ` (${e.path})` : code.startsWith('SQLITE_') ? ' (the results store)' : '';
    if (NO_SPACE.has(base) || (base === 'SQLITE_IOERR' && /ENOSPC|disk is full|no space/i.test(e.message))) {
      return `no space left on the device${at}: free some space or choose a folder on another disk, ` +
        'then run the command again (finished work is kept and resumed)';
    }
    if (READ_ONLY.has(base)) return `cannot write${at}: the file or its disk is read-only; choose a writable folder`;
    if (FORBIDDEN.has(base)) return `permission denied${at}: choose a folder you can write to, or change its permissions`;
    // A file where a folder is needed (--out naming a file, or a path through one), and the reverse.
    if (code === 'ENOTDIR' || (code === 'EEXIST' && (e as { syscall?: unknown }).syscall === 'mkdir')) {
      return `a file stands where a folder is needed${at}: choose another folder (or move the file)`;
    }
    if (code === 'EISDIR') return `a folder stands where a file is to be written${at}: give a file name`;
  }
  return undefined;
}
