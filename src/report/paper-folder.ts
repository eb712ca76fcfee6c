// The folder of paper files (genstudy report --figures DIR) is replaced whole, as the report folder
// is (report-folder.ts), and written together with it: every file of both is written under
// temporary names first, then the report folder is renamed into place and the paper folder right
// after it. So a kill leaves each folder old or new and whole; only a kill between the two renames
// leaves a new report beside the previous paper files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { checkReplaceable, writeWholeFolder, type FolderKind } from './report-folder.ts';

/** The folder's index, written last; its first line says genstudy wrote the folder, which is checked before one is replaced. */
export const INDEX = 'README.md';
export const INDEX_MARK = '<!-- genstudy report --figures: this folder is replaced whole by the next such report; keep no other files in it -->';

const PAPER: FolderKind = {
  folder: 'figures', writing: 'writing the figures', last: INDEX, owns: /\.(svg|pdf|tex|md)$/,
  // README.md is a common name: a folder is taken for an earlier one only when genstudy's mark heads its index
  recognises: (file) => readFileSync(file, 'utf8').startsWith(INDEX_MARK),
};

/** Throws the UserError writing the paper files into `dir` beside the report `reportDir` would end with, so that it comes first. */
export function checkPaperFolder(dir: string, reportDir: string): void {
  const [paper, report] = [path.resolve(dir), path.resolve(reportDir)];
  const inside = (x: string, y: string) => x === y || x.startsWith(y + path.sep);
  if (inside(paper, report) || inside(report, paper)) {
    throw new UserError(`--figures ${dir}: the figures folder and the report folder (${reportDir}) must not hold each other, since each ` +
      `is replaced whole; choose a folder beside the report, e.g. ${path.join(path.dirname(report), `${path.basename(report)}-figures`)}`);
  }
  checkReplaceable(paper, PAPER);
}

/** Replaces `dir` by a folder of exactly `files` while `writeReport` writes the report folder `reportDir`; returns the paper files' paths. */
export function writePaperFolder(dir: string, reportDir: string, files: readonly (readonly [string, string | Buffer])[],
  writeReport: () => void): string[] {
  checkPaperFolder(dir, reportDir);
  return writeWholeFolder(path.resolve(dir), files, PAPER, writeReport);
}
