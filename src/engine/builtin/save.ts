// Saving a model as a Hugging Face folder that transformers, PEFT and vLLM load: config.json,
// model.safetensors (float32, Hugging Face names and layouts; a tied lm_head is left out as
// save_pretrained does), the tokenizer files. Every file is written to a temporary name, then renamed.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { ForwardModel } from './forward-model.ts';
import { writeSafetensors } from '../hf/safetensors.ts';
import { writeFileAtomic } from '../../atomic-write.ts';

/** Files of the source folder that are copied along unchanged when present. */
const COPIED = ['special_tokens_map.json', 'generation_config.json'];

export async function saveModel(model: ForwardModel, dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const linear = new Set(model.family.params(model.arch).filter((s) => s.linear).map((s) => s.name));
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, t] of model.params.tensors) {
    const fileLayout = linear.has(name) ? tf.transpose(t) : t;
    const data = (await fileLayout.data()) as Float32Array;
    tensors.set(name, { shape: fileLayout.shape, data: data.slice() });
    if (fileLayout !== t) fileLayout.dispose();
  }
  // A stale index would make loaders read the old shards instead of the new single file.
  fs.rmSync(path.join(dir, 'model.safetensors.index.json'), { force: true });
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors, { format: 'pt' });
  const config: Record<string, unknown> = { ...model.config };
  if ('torch_dtype' in config || !('dtype' in config)) config.torch_dtype = 'float32';
  if ('dtype' in config) config.dtype = 'float32';
  writeFileAtomic(path.join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  writeFileAtomic(path.join(dir, 'tokenizer.json'), JSON.stringify(model.tokenizer.json, null, 2) + '\n');
  writeFileAtomic(path.join(dir, 'tokenizer_config.json'), JSON.stringify(model.tokenizer.config, null, 2) + '\n');
  for (const f of COPIED) {
    const src = path.join(model.dir, f);
    if (fs.existsSync(src) && path.resolve(src) !== path.resolve(dir, f)) writeFileAtomic(path.join(dir, f), fs.readFileSync(src, 'utf8'));
  }
}
