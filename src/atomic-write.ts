// Files and folders appear whole or not at all: each is built under a temporary name beside its
// final place, then renamed (a rename within one folder is atomic on POSIX file systems). One
// naming rule for the temporary names, so that every scanner (checkpoint discovery, the training
// resume, the hub cache) can tell "still being written" from "done", and a killed writer leaves
// only names that everything ignores.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pausePoint } from './pause-point.ts';

/** ".<name>.<pid>.<random>.tmp" beside `target`: hidden, unique per writer, recognisable. */
export function temporaryName(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** True for a name a writer is still building (also the ".tmp-<pid>" names of earlier versions). */
export function isTemporaryName(name: string): boolean {
  return name.endsWith('.tmp') || /\.tmp-\d+/.test(name);
}

/** ".<name>.<pid>.<random>.old.tmp": where a folder being replaced waits until its successor is in place. */
function asideName(target: string): string {
  return temporaryName(target).replace(/\.tmp$/, '.old.tmp');
}

/** The name (in the same folder) that an aside folder was moved away from, or undefined for other names. */
function replacedName(name: string): string | undefined {
  return /^\.(.+)\.\d+\.[0-9a-f]+\.old\.tmp$/.exec(name)?.[1];
}

/**
 * Puts back folders a killed writer had moved aside but not yet replaced (their successor never
 * arrived), so that a kill mid-replacement leaves the old folder, whole.
 */
export function restoreAsideFolders(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) {
    const original = replacedName(name);
    if (original !== undefined && !fs.existsSync(path.join(dir, original))) fs.renameSync(path.join(dir, name), path.join(dir, original));
  }
}

function moveIntoPlace(tmp: string, target: string): void {
  if (!fs.statSync(tmp).isDirectory() || !fs.existsSync(target)) {
    fs.renameSync(tmp, target);
    return;
  }
  // A folder cannot be renamed over a non-empty one. Deleting the old one file by file first would
  // let a kill leave it half-deleted; renamed aside, it is whole until the new one is in place.
  const aside = asideName(target);
  fs.renameSync(target, aside);
  pausePoint(`${path.basename(target)}:old-aside`);
  fs.renameSync(tmp, target);
  fs.rmSync(aside, { recursive: true, force: true });
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
