// The built-in engine as a ModelLoader for the evaluation grid (its remote counterpart is
// ../remote/loader.ts).
import path from 'node:path';
import type { CheckpointRef, ModelLoader } from '../../types.ts';
import { checkModelFolder, loadModel } from './load.ts';
import { LoraAdapters, readAdapterConfig } from './lora.ts';
import { SafetensorsReader } from '../hf/safetensors.ts';
import type { BuiltinModel } from './model.ts';

const load = (maxBatchTokens?: number): ModelLoader => async (cp) => {
  const opts = { ...(maxBatchTokens === undefined ? {} : { maxBatchTokens }), ...(cp.tokenizer === undefined ? {} : { tokenizerDir: cp.tokenizer }) };
  if (cp.base === undefined) {
    const model = await loadModel(cp.dir, opts);
    return { model, dispose: () => model.dispose(), source: 'builtin' };
  }
  const base = await loadModel(cp.base, opts);
  let model: BuiltinModel;
  try {
    const adapters = LoraAdapters.load(base, cp.dir);
    model = adapters.merged();
    adapters.dispose();
  } finally {
    base.dispose();
  }
  model.maxBatchTokens = base.maxBatchTokens;
  return { model, dispose: () => model.dispose(), source: 'builtin' };
};


/** What loading a checkpoint checks, without reading weights: the model folder (the base for an adapter) and the adapter's config and header. */
export function checkCheckpoint(cp: CheckpointRef): void {
  checkModelFolder(cp.base ?? cp.dir, cp.tokenizer === undefined ? {} : { tokenizerDir: cp.tokenizer });
  if (cp.base === undefined) return;
  readAdapterConfig(cp.dir);
  new SafetensorsReader(path.join(cp.dir, 'adapter_model.safetensors')).close();
}

/** The built-in engine; a LoRA checkpoint is loaded as its base model with the adapter merged in (PEFT's merge_and_unload). */
export const builtinLoader = (maxBatchTokens?: number): ModelLoader => Object.assign(load(maxBatchTokens), { check: checkCheckpoint });
