// Files and folders appear whole or not at all: each is built under a temporary name beside its
// final place, then renamed (a rename within one folder is atomic on POSIX file systems). One
// naming rule for the temporary names, so that every scanner (checkpoint discovery, the training
// resume, the hub cache) can tell "still being written" from "done", and a killed writer leaves
// only names that everything ignores.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pausePoint } from './pause-point.ts';

/**
 * What a file holds: a text, bytes, or a text in parts (chunks written one after the other, in
 * order, never joined: a report's page, a table of millions of rows, longer than a string can be).
 */
export type FileContents = string | Uint8Array | Iterable<string>;

/** Writes `data` to the file `file` (created or truncated); a text in parts chunk by chunk. */
export function writeContents(file: string, data: FileContents): void {
  if (typeof data === 'string' || data instanceof Uint8Array) {
    fs.writeFileSync(file, data);
    return;
  }
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of data) {
      const bytes = Buffer.from(chunk, 'utf8');
      for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    }
  } finally {
    fs.closeSync(fd);
  }
}

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

/**
 * Removes what killed writers left while building `target` (its temporary names whose writer's
 * process is gone), after putting back a folder one of them had moved aside. A live writer's
 * temporaries are left alone: two writers may build the same target at once.
 */
export function removeAbandonedTemporaries(target: string): void {
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) return;
  restoreAsideFolders(dir);
  const own = new RegExp(`^\\.${escapeRegExp(path.basename(target))}\\.(\\d+)\\.[0-9a-f]+(\\.old)?\\.tmp$`);
  for (const name of fs.readdirSync(dir)) {
    const pid = own.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Writes several files that belong together (a table and its companions). Every file is written
 * whole under its temporary name first, and only then are they renamed into place, one after the
 * other, and the files in `stale` (earlier companions this set no longer has) removed. Each rename
 * is atomic; the set is not (no POSIX call renames several files at once): a kill while the files
 * are written leaves the old set as it was, and only a kill in the microseconds between the renames
 * can leave some new files beside old ones. The first file is renamed last, so that its being
 * new means that its companions are too.
 */
export function writeFilesTogether(files: readonly { file: string; data: FileContents }[], stale: readonly string[] = []): void {
  const written: { tmp: string; file: string }[] = [];
  try {
    for (const { file, data } of files) {
      const tmp = temporaryName(file);
      written.push({ tmp, file });
      writeContents(tmp, data);
    }
    pausePoint(`${path.basename(files[0]?.file ?? '')}:files-written`);
  } catch (err) {
    for (const { tmp } of written) fs.rmSync(tmp, { force: true });
    throw err;
  }
  for (const { tmp, file } of written.slice(1)) fs.renameSync(tmp, file);
  for (const file of stale) fs.rmSync(file, { force: true });
  if (written.length) fs.renameSync(written[0].tmp, written[0].file);
}

/** Writes a whole file atomically (its folder must exist), a text in parts chunk by chunk; returns `file`. */
export function writeFileAtomic(file: string, data: FileContents | NodeJS.ArrayBufferView): string {
  buildAtomicallySync(file, (tmp) => (typeof data === 'string' || ArrayBuffer.isView(data) ? fs.writeFileSync(tmp, data) : writeContents(tmp, data)));
  return file;
}
