// Files and folders appear whole or not at all: each is built under a temporary name beside its
// final place, then renamed (a rename within one folder is atomic on POSIX file systems). One
// naming rule for the temporary names, so that every scanner (checkpoint discovery, the training
// resume, the hub cache) can tell "still being written" from "done", and a killed writer leaves
// only names that everything ignores.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** ".<name>.<pid>.<random>.tmp" beside `target`: hidden, unique per writer, recognisable. */
export function temporaryName(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** True for a name a writer is still building (also the ".tmp-<pid>" names of earlier versions). */
export function isTemporaryName(name: string): boolean {
  return name.endsWith('.tmp') || /\.tmp-\d+/.test(name);
}

function moveIntoPlace(tmp: string, target: string): void {
  // A folder cannot be renamed over a non-empty one: the old one goes first (a reader then sees
  // no folder for a moment, never a half-written one).
  if (fs.statSync(tmp).isDirectory()) fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(tmp, target);
}

/** Builds `target` (a file or a folder) at a temporary path with `build`, then renames it into place. */
export function buildAtomicallySync(target: string, build: (tmp: string) => void): void {
  const tmp = temporaryName(target);
  try {
    build(tmp);
    moveIntoPlace(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** The asynchronous form of buildAtomicallySync. */
export async function buildAtomically(target: string, build: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = temporaryName(target);
  try {
    await build(tmp);
    moveIntoPlace(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Writes a whole file atomically (its folder must exist); returns `file`. */
export function writeFileAtomic(file: string, data: string | NodeJS.ArrayBufferView): string {
  buildAtomicallySync(file, (tmp) => fs.writeFileSync(tmp, data));
  return file;
}
