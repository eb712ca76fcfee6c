// What a folder given to `analyze` or `report` holds: lm-evaluation-harness output (`results_<ts>.json`
// of 0.4, or any *.json with a "results" object as 0.3 wrote them under any name, e.g. Pythia's
// `160m_step1000.json`) or a Hugging Face Trainer's run folder(s) (trainer_state.json). Model files a
// checkpoint folder also holds (config.json, tokenizer.json, ...) are never opened, and neither is
// anything under a score file's name that is not a regular file: opening a FIFO waits for a writer
// forever, a device can read without end. Those are named in a note instead.
import { readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

export interface FolderListing {
  /** *.json files that may be lm-eval output (results*.json and other JSON not named as model files). */
  jsonFiles: string[];
  trainerStates: string[];
  /** Special files (FIFOs, sockets, devices, broken links) under a score file's name, left unopened: one note each. */
  notes: string[];
}

/** JSON files Hugging Face and PEFT write beside weights: never score files. */
const MODEL_FILES = new Set([
  'config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json',
  'vocab.json', 'added_tokens.json', 'adapter_config.json', 'preprocessor_config.json', 'processor_config.json',
  'chat_template.json', 'trainer_state.json',
]);

export async function listScoreFolder(folder: string): Promise<FolderListing> {
  const out: FolderListing = { jsonFiles: [], trainerStates: [], notes: [] };
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
      const list = e.name === 'trainer_state.json' ? out.trainerStates
        : e.name.endsWith('.json') && !MODEL_FILES.has(e.name) && !e.name.endsWith('.index.json') ? out.jsonFiles : undefined;
      if (list === undefined) continue;
      // A link is followed to what it names; the entry's own type says the rest without a system call.
      const kind = e.isFile() ? 'file' : await kindOf(p);
      if (kind === 'file') list.push(p);
      else out.notes.push(`${p}: ${kind}, not a regular file; not opened`);
    }
  }
  await walk(folder);
  out.jsonFiles.sort();
  out.trainerStates.sort();
  out.notes.sort();
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
