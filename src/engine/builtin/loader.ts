// The built-in engine as a ModelLoader for the evaluation grid (its remote counterpart is
// ../remote/loader.ts).
import type { ModelLoader } from '../../types.ts';
import { loadModel } from './load.ts';
import { LoraAdapters } from './lora.ts';
import type { BuiltinModel } from './model.ts';

/** The built-in engine; a LoRA checkpoint is loaded as its base model with the adapter merged in (PEFT's merge_and_unload). */
export const builtinLoader = (maxBatchTokens?: number): ModelLoader => async (cp) => {
  const opts = { ...(maxBatchTokens === undefined ? {} : { maxBatchTokens }), ...(cp.tokenizer === undefined ? {} : { tokenizerDir: cp.tokenizer }) };
  if (cp.base === undefined) {
    const model = await loadModel(cp.dir, opts);
    return { model, dispose: () => model.dispose() };
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
  return { model, dispose: () => model.dispose() };
};

