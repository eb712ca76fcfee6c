// What identifies a checkpoint for the cache without loading it: the engine's weights identity
// (sha256 of the weight files, the same value the loaded model reports as `model.id`) plus a hash
// of the small files that change what the model sees or how it runs (config.json, the tokenizer
// files), since identical weights with another tokenizer answer differently.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { weightsIdentity } from '../engine/builtin/identity.ts';
import { weightFiles } from '../engine/builtin/checkpoint.ts';

const SIDE_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'generation_config.json'];

export interface ModelIdentity {
  /** The engine's model.id for this folder. */
  weights: string;
  /** The cache's model key: weights identity and side files together. */
  key: string;
}

export function identifyModelFolder(dir: string): ModelIdentity {
  const weights = weightsIdentity(weightFiles(dir));
  const h = createHash('sha256').update(weights);
  for (const f of SIDE_FILES) {
    const file = path.join(dir, f);
    h.update(`\u0000${f}\u0000`);
    if (fs.existsSync(file)) h.update(fs.readFileSync(file));
  }
  return { weights, key: `${weights}+${h.digest('hex').slice(0, 32)}` };
}
