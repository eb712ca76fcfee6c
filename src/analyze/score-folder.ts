// What a folder given to `analyze` or `report` holds: lm-evaluation-harness output (`results_<ts>.json`
// of 0.4, or any *.json with a "results" object as 0.3 wrote them under any name, e.g. Pythia's
// `160m_step1000.json`) or a Hugging Face Trainer's run folder(s) (trainer_state.json). Model files a
// checkpoint folder also holds (config.json, tokenizer.json, ...) are never opened.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

export interface FolderListing {
  /** *.json files that may be lm-eval output (results*.json and other JSON not named as model files). */
  jsonFiles: string[];
  trainerStates: string[];
}

/** JSON files Hugging Face and PEFT write beside weights: never score files. */
const MODEL_FILES = new Set([
  'config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json',
  'vocab.json', 'added_tokens.json', 'adapter_config.json', 'preprocessor_config.json', 'trainer_state.json',
]);

export async function listScoreFolder(folder: string): Promise<FolderListing> {
  const out: FolderListing = { jsonFiles: [], trainerStates: [] };
  async function walk(dir: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      throw new UserError(`${dir}: cannot read folder (${(err as Error).message})`);
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === 'trainer_state.json') out.trainerStates.push(p);
      else if (e.name.endsWith('.json') && !MODEL_FILES.has(e.name) && !e.name.endsWith('.index.json')) out.jsonFiles.push(p);
    }
  }
  await walk(folder);
  out.jsonFiles.sort();
  out.trainerStates.sort();
  return out;
}
