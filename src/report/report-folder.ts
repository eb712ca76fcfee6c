// The report folder appears whole: it is built under a temporary name beside its final place and
// renamed there, the previous report renamed aside and removed only once the new one is in place.
// A kill at any moment leaves either the old report or the new one, never tables of one beside the
// page of the other, and no table of an earlier report survives a report that no longer has it.
import fs from 'node:fs';
import path from 'node:path';
import { buildAtomicallySync, removeAbandonedTemporaries } from '../atomic-write.ts';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';

const PAGE = 'report.html';
const REPORT_FILE = /\.(html|csv|json)$/;

/** Replaces the folder `dir` by one holding exactly `files` (name -> text), the page written last; returns their paths. */
export function writeReportFolder(dir: string, files: readonly (readonly [string, string])[]): string[] {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  removeAbandonedTemporaries(dir);
  checkReplaceable(dir);
  buildAtomicallySync(dir, (tmp) => {
    fs.mkdirSync(tmp);
    for (const [name, text] of files) {
      if (name === PAGE) continue;
      fs.writeFileSync(path.join(tmp, name), text);
    }
    pausePoint(`${path.basename(dir)}:tables-written`);
    const page = files.find(([name]) => name === PAGE);
    if (page) fs.writeFileSync(path.join(tmp, PAGE), page[1]);
  });
  return files.map(([name]) => path.join(dir, name));
}

/**
 * The whole folder is replaced, so it must be a report: new, empty, or an earlier report (its page
 * and only page and table files). Anything else may be a user's own files, which are not removed.
 */
function checkReplaceable(dir: string): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new UserError(`${dir}: is a file, not a folder; choose a folder for the report`);
    throw err;
  }
  if (entries.length === 0) return;
  const foreign = entries.find((e) => !e.isFile() || !REPORT_FILE.test(e.name));
  if (foreign || !entries.some((e) => e.name === PAGE)) {
    throw new UserError(`${dir}: not a report folder (${foreign ? `it holds "${foreign.name}"` : `it has no ${PAGE}`}) and writing ` +
      'a report replaces the whole folder; choose a new or empty folder');
  }
}
