// The report folder appears whole: it is built under a temporary name beside its final place and
// renamed there, the previous report renamed aside and removed only once the new one is in place.
// A kill at any moment leaves either the old report or the new one, never tables of one beside the
// page of the other, and no table of an earlier report survives a report that no longer has it.
// The folder of paper files (paper-folder.ts) is written the same way, by the same function.
import fs from 'node:fs';
import path from 'node:path';
import { buildAtomicallySync, removeAbandonedTemporaries, writeContents, type FileContents } from '../atomic-write.ts';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';

/** A kind of folder genstudy replaces whole: what its files are called and which one it writes last. */
export interface FolderKind {
  /** In messages: "not a <folder> folder". */
  folder: string;
  /** In messages: "<writing> replaces the whole folder". */
  writing: string;
  /** The file written last: an earlier folder of this kind holds it. */
  last: string;
  /** The names of the files such a folder holds. */
  owns: RegExp;
  /** Whether `file` (the last file of an existing folder) was written as this kind; by default its name alone says so. */
  recognises?: (file: string) => boolean;
}

const REPORT: FolderKind = { folder: 'report', writing: 'writing a report', last: 'report.html', owns: /\.(html|csv|json)$/ };

/** Throws the UserError writing a report into `dir` would end with, so that it comes before the report is made. */
export function checkReportFolder(dir: string): void {
  checkReplaceable(dir, REPORT);
}

export type { FileContents } from '../atomic-write.ts';

/** Replaces the folder `dir` by one holding exactly `files` (name -> contents), the page written last; returns their paths. */
export function writeReportFolder(dir: string, files: readonly (readonly [string, FileContents])[]): string[] {
  return writeWholeFolder(dir, files, REPORT);
}

/**
 * Replaces the folder `dir` by one holding exactly `files`, `kind.last` written last; returns their
 * paths. `within` runs once every file is written under the temporary name and before the rename,
 * so that a second folder written there is renamed into place right before this one.
 */
export function writeWholeFolder(dir: string, files: readonly (readonly [string, FileContents])[], kind: FolderKind,
  within?: () => void): string[] {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  removeAbandonedTemporaries(dir);
  checkReplaceable(dir, kind);
  buildAtomicallySync(dir, (tmp) => {
    fs.mkdirSync(tmp);
    for (const [name, data] of files) {
      if (name === kind.last) continue;
      writeContents(path.join(tmp, name), data);
    }
    pausePoint(`${path.basename(dir)}:tables-written`);
    const last = files.find(([name]) => name === kind.last);
    if (last) writeContents(path.join(tmp, kind.last), last[1]);
    within?.();
  });
  return files.map(([name]) => path.join(dir, name));
}

/**
 * The whole folder is replaced, so it must be one genstudy wrote: new, empty, or an earlier one of
 * its kind (its last file and only files of its kind). Anything else may be a user's own files, which are not removed.
 */
export function checkReplaceable(dir: string, kind: FolderKind): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new UserError(`${dir}: is a file, not a folder; choose a folder for the ${kind.folder}`);
    throw err;
  }
  if (entries.length === 0) return;
  const foreign = entries.find((e) => !e.isFile() || !kind.owns.test(e.name));
  const last = entries.find((e) => e.name === kind.last);
  if (foreign || !last || (kind.recognises && !kind.recognises(path.join(dir, kind.last)))) {
    const why = foreign ? `it holds "${foreign.name}"` : !last ? `it has no ${kind.last}` : `its ${kind.last} was not written by genstudy`;
    throw new UserError(`${dir}: not a ${kind.folder} folder (${why}) and ${kind.writing} ` +
      'replaces the whole folder; choose a new or empty folder');
  }
}
