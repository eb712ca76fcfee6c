// A results store that SQLite finds damaged, or that another process keeps locked past the busy
// timeout, is the user's to fix (restore a copy; wait for or stop the other process), not a bug:
// such errors become one line naming the store and what to do. They are StoreProblems, so that a
// loop over checkpoints (watch) stops at the first one rather than meeting it again for each.
import type Database from 'better-sqlite3';
import { UserError } from '../errors.ts';
import { lockHolders } from './lock-holders.ts';

export class StoreProblem extends UserError {
  override name = 'StoreProblem';
}

/** `err` as a StoreProblem when it is SQLite's "damaged" or "locked" answer for the store at `path`, else `err` itself. */
export function storeError(path: string, err: unknown, busyTimeoutMs: number): unknown {
  const code = String((err as { code?: unknown }).code ?? '');
  if (err instanceof UserError || !code.startsWith('SQLITE_')) return err;
  const message = (err as Error).message;
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return new StoreProblem(`${path}: the results store is damaged (${message}); restore it from a copy, or move it aside to start a new one`,
      { file: path });
  }
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    const holders = path === ':memory:' ? [] : lockHolders([path, `${path}-shm`, `${path}-wal`]);
    const who = holders.length ? `process ${holders.join(', process ')}` : 'another process (another genstudy command?)';
    return new StoreProblem(`${path}: the results store is locked: ${who} kept it for more than ${busyTimeoutMs / 1000} s; wait for it ` +
      'to finish or stop it, then run this again', { file: path });
  }
  return err;
}

/**
 * Makes every method of `proto` (a class over one store's connection) report a damaged or locked
 * store as a StoreProblem, wherever in the method SQLite says so.
 */
export function reportStoreProblems(proto: object, dbOf: (self: never) => Database.Database, busyTimeoutMs: number): void {
  for (const name of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name)!;
    if (name === 'constructor' || typeof d.value !== 'function') continue;
    const method = d.value as (...args: unknown[]) => unknown;
    Object.defineProperty(proto, name, {
      ...d,
      value: function (this: never, ...args: unknown[]) {
        try {
          return method.apply(this, args);
        } catch (err) {
          throw storeError(dbOf(this).name, err, busyTimeoutMs);
        }
      },
    });
  }
}
