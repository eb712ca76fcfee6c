// What identifies a checkpoint for the cache without loading it: the engine's weights identity
// (sha256 of the weight files, the same value the loaded model reports as `model.id`) plus a hash
// of the small files that change what the model sees or how it runs (config.json, the tokenizer
// files), since identical weights with another tokenizer answer differently. A LoRA adapter is
// identified by its base model's identity and the adapter's own weights and config.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CheckpointRef } from '../types.ts';
import { weightsIdentity } from './hf/identity.ts';
import { weightFiles } from './hf/checkpoint.ts';

const SIDE_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'generation_config.json'];

export interface ModelIdentity {
  /** The `id` the loaded model reports (checked after loading, so a folder rewritten meanwhile is caught). */
  engineId: string;
  /** The checkpoint's content identity, recorded in the store (checkpoints.content_hash). */
  weights: string;
  /** The cache's model key: weights and side files together. */
  key: string;
}

function sideFilesHash(files: string[]): string {
  const h = createHash('sha256');
  for (const file of files) {
    h.update(`\u0000${path.basename(file)}\u0000`);
    if (fs.existsSync(file)) h.update(fs.readFileSync(file));
  }
  return h.digest('hex').slice(0, 32);
}

/** `tokenizerDir`: where the tokenizer files come from when the folder has none. */
export function identifyModelFolder(dir: string, tokenizerDir?: string): ModelIdentity {
  const weights = weightsIdentity(weightFiles(dir));
  const side = SIDE_FILES.map((f) => path.join(tokenizerDir !== undefined && f.startsWith('tokenizer') ? tokenizerDir : dir, f));
  return { engineId: weights, weights, key: `${weights}+${sideFilesHash(side)}` };
}

/** The identity of a checkpoint: a model folder, or a LoRA adapter on its base model. */
export function identifyCheckpoint(cp: CheckpointRef): ModelIdentity {
  if (cp.base === undefined) return identifyModelFolder(cp.dir, cp.tokenizer);
  const base = weightsIdentity(weightFiles(cp.base));
  const adapter = weightsIdentity([path.join(cp.dir, 'adapter_model.safetensors')]).replace(/^sha256:/, '');
  const weights = `${base}+lora:${adapter}`;
  const side = sideFilesHash([...SIDE_FILES.map((f) => path.join(cp.base!, f)), path.join(cp.dir, 'adapter_config.json')]);
  return { engineId: `${base}+lora`, weights, key: `${weights}+${side}` };
}
