// What a folder given to `analyze` or `report` holds: the files each folder reader (folder-readers.ts)
// claims by name, found in it or below (lm-evaluation-harness output: `results_<ts>.json` of 0.4, or
// any *.json with a "results" object as 0.3 wrote them under any name, e.g. Pythia's
// `160m_step1000.json`; a Hugging Face Trainer's run folders: trainer_state.json). Model files a
// checkpoint folder also holds (config.json, tokenizer.json, ...) are claimed by none and never
// opened, and neither is anything under a score file's name that is not a regular file: opening a
// FIFO waits for a writer forever, a device can read without end. Those are named in a note instead.
import { readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import type { FolderReader } from './folder-reader.ts';
import { FOLDER_READERS } from './folder-readers.ts';

/**
 * The files each reader may read, under its `listedAs` name (lm-eval's "jsonFiles", the Trainer's
 * "trainerStates"), and `notes`: special files (FIFOs, sockets, devices, broken links) under a score
 * file's name, left unopened, one note each.
 */
export type FolderListing = Record<string, string[]> & { notes: string[] };

export async function listScoreFolder(folder: string, readers: readonly FolderReader[] = FOLDER_READERS): Promise<FolderListing> {
  const out = { notes: [] } as unknown as FolderListing;
  for (const r of readers) out[r.listedAs] = [];
  async function walk(dir: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      throw new UserError(`${dir}: cannot read folder (${(err as Error).message})`);
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        await walk(p);
        continue;
      }
      const lists = readers.filter((r) => r.claims(e.name)).map((r) => out[r.listedAs]);
      if (lists.length === 0) continue;
      // A link is followed to what it names; the entry's own type says the rest without a system call.
      const kind = e.isFile() ? 'file' : await kindOf(p);
      if (kind === 'file') for (const list of lists) list.push(p);
      else out.notes.push(`${p}: ${kind}, not a regular file; not opened`);
    }
  }
  await walk(folder);
  for (const list of Object.values(out)) list.sort();
  return out;
}

async function kindOf(path: string): Promise<string> {
  let s: Stats;
  try {
    s = await stat(path);
  } catch {
    return 'a link to nothing';
  }
  return s.isFile() ? 'file' : s.isFIFO() ? 'a FIFO (named pipe)' : s.isSocket() ? 'a socket'
    : s.isCharacterDevice() || s.isBlockDevice() ? 'a device' : s.isDirectory() ? 'a folder' : 'a special file';
}
