// `genstudy serve --mimic vllm`: where vLLM's OpenAI server answers differently from genstudy's
// own profile, the vLLM profile answers as vLLM does, so the remote engine's tests check vLLM's
// behaviour and not genstudy's reading of it. Each behaviour names the vLLM code it follows
// (vllm-project/vllm, read at the commits given):
// - GET /v1/models: vllm/entrypoints/openai/models/serving.py OpenAIServingModels.show_available_models
//   and OpenAIModelRegistry.show_available_models (commit 00153c8b7948077ebdfc5bfa14e403da41aaea6d):
//   a base model card has id, root (the path it was started on), max_model_len and permission; an
//   adapter card has root (the adapter path) and parent (the base model's name) and no
//   max_model_len; no card says which weights are loaded.
// - LoRA loading, same file, load_lora_adapter and _check_load_lora_adapter_request: a name
//   already loaded is a 400 ("...set 'load_inplace' to True."); an adapter path without adapter
//   files is a 404 LoRAAdapterNotFoundError (vllm/exceptions.py; raised by vllm/lora/worker_manager.py
//   WorkerLoRAManager._load_adapter on FileNotFoundError), any other load failure a 500
//   InternalServerError; unloading an unknown name is a 404 ("cannot be found").
// - Adapters beyond --max-loras: vLLM keeps every added adapter and its LRU cache
//   (vllm/lora/worker_manager.py LRUCacheWorkerLoRAManager) evicts the least recently used one,
//   loading it again from its path when a request names it; never a 429. A request whose adapter
//   would pass --max-loras waits (merged-copies.ts cites the scheduler).
// - The LoRA routes exist only with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (vllm/entrypoints/serve/lora):
//   without them FastAPI's own 404, {"detail": "Not Found"}.
// - Models without LoRA support (GPT-2's GPT2LMHeadModel does not implement SupportsLoRA) refuse
//   --enable-lora at start-up: "<class> does not support LoRA yet." (vllm/model_executor/models/interfaces.py
//   SupportsLoRA, checked when the model runner loads the model with a LoRA config).
// The context limit is context-limit.ts's, the sampling defaults sampling.ts's, and the echo's
// prompt_logprobs completions.ts's, each with its own citation.
import fs from 'node:fs';
import path from 'node:path';
import { HttpError } from './protocol.ts';

interface Card { root: string; parent: string | null }

/** FastAPI's answer for a route that is not registered. */
export const FASTAPI_NOT_FOUND = { detail: 'Not Found' } as const;

/** The /v1/models entry of a base model or an adapter, as vLLM lists it. */
export function vllmModelCard(id: string, s: Card, created: number, maxModelLen: number): Record<string, unknown> {
  const permission = [{
    id: `modelperm-${id}`, object: 'model_permission', created, allow_create_engine: false, allow_sampling: true, allow_logprobs: true,
    allow_search_indices: false, allow_view: true, allow_fine_tuning: false, organization: '*', group: null, is_blocking: false,
  }];
  return s.parent === null
    ? { id, object: 'model', created, owned_by: 'vllm', root: s.root, parent: null, max_model_len: maxModelLen, permission }
    : { id, object: 'model', created, owned_by: 'vllm', root: s.root, parent: s.parent, max_model_len: null, permission };
}

/** Model classes vLLM serves without LoRA support, by config.json model_type (the families genstudy knows). */
const NO_LORA: Record<string, string> = { gpt2: 'GPT2LMHeadModel' };

export const VLLM = {
  /** Why vLLM would not start this model with LoRA enabled, or undefined. */
  loraRefusal(config: Record<string, unknown>): string | undefined {
    const cls = NO_LORA[String(config.model_type)];
    return cls ? `${cls} does not support LoRA yet.` : undefined;
  },
  alreadyLoaded(name: string): string {
    return `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`;
  },
  notLoaded(name: string): string {
    return `The lora adapter '${name}' cannot be found.`;
  },
  /**
   * The adapter folder, or vLLM's 404 when it holds no adapter files (adapter_config.json and the
   * weights), checked after genstudy's own rule on where adapters may be loaded from.
   */
  adapterFolder(name: string, wanted: string, roots: readonly string[], inRoots: (p: string, r: readonly string[]) => string): string {
    const notFound = new HttpError(404, `Loading lora ${name} failed: No adapter found for ${wanted}`, 'NotFoundError');
    const lexical = path.resolve(wanted);
    if (!fs.existsSync(lexical) && roots.some((r) => lexical.startsWith(r + path.sep))) throw notFound;
    const real = inRoots(wanted, roots);
    const has = (f: string): boolean => fs.existsSync(path.join(real, f));
    if (!has('adapter_config.json') || !(has('adapter_model.safetensors') || has('adapter_model.bin'))) throw notFound;
    return real;
  },
};
