// Evaluating checkpoints through OpenAI-compatible servers: a ModelLoader for evaluateGrid.
// - A full checkpoint is the model the servers serve (--model-name, else the one /v1/models lists).
//   When the server reports its weights identity (`genstudy serve` does: genstudy_weights), it must
//   equal the checkpoint folder's, so a server on other weights cannot fill the cache.
// - A LoRA checkpoint (PEFT folder) is loaded on every endpoint as an adapter named after its
//   weights hash (vLLM's POST /v1/load_lora_adapter, which needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True
//   and --enable-lora; `genstudy serve` has it), requests name it as `model`, and it is unloaded
//   when the checkpoint is done: one server evaluates every checkpoint of a run. The adapter path
//   is sent as this machine sees it, so the servers must see the same files (shared disk).
// The tokenizer and the position limit come from the local model folder (the base for adapters).
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.ts';
import { readJsonFile } from '../builtin/checkpoint.ts';
import { loadTokenizer } from '../builtin/tokenizer.ts';
import type { CheckpointRef, ModelHandle, ModelLoader } from '../../types.ts';
import { identifyCheckpoint } from '../model-identity.ts';
import { RemoteEndpoints, RemoteError, type EndpointOptions } from './endpoints.ts';
import { RemoteModel, type RemoteModelOptions } from './model.ts';

export interface RemoteLoaderOptions extends EndpointOptions, Pick<RemoteModelOptions, 'promptsPerRequest' | 'scoringMaxTokens' | 'logprobsForm' | 'firstTokenTopK'> {
  /** Base URLs of the servers (http://host:port or http://host:port/v1). */
  urls: string[];
  /** The served model's name (default: the first model /v1/models lists). */
  modelName?: string;
}

interface ServedModel { id: string; genstudy_weights?: string }

/** The model's longest sequence from config.json (the fields the families read). */
export function maxLengthOf(dir: string): number {
  const file = path.join(dir, 'config.json');
  const cfg = readJsonFile(file);
  for (const key of ['max_position_embeddings', 'n_positions', 'n_ctx', 'max_sequence_length', 'seq_length']) {
    const v = cfg[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  throw new UserError(`${file}: no max_position_embeddings / n_positions, so the model's longest sequence is unknown`);
}

async function servedModels(endpoints: RemoteEndpoints, url: string): Promise<ServedModel[]> {
  const answer = await endpoints.get('/v1/models', url) as { data?: unknown };
  if (!answer || !Array.isArray(answer.data) || answer.data.some((m) => typeof (m as ServedModel)?.id !== 'string')) {
    throw new RemoteError(`the server at ${url} answered GET /v1/models without a "data" list of models`);
  }
  return answer.data as ServedModel[];
}

/** A ModelLoader over the servers at `opts.urls`, for evaluateGrid's `loader` option. */
export function remoteLoader(opts: RemoteLoaderOptions): ModelLoader & { endpoints: RemoteEndpoints } {
  const endpoints = new RemoteEndpoints(opts.urls, opts);
  const loader = async (cp: CheckpointRef): Promise<ModelHandle> => {
    const identity = identifyCheckpoint(cp);
    const local = cp.base ?? cp.dir;
    const tokenizer = loadTokenizer(cp.tokenizer ?? local);
    const maxLength = maxLengthOf(local);
    let model: string;
    let unload: (() => void) | undefined;
    let reload: ((url: string) => Promise<void>) | undefined;
    if (cp.base === undefined) {
      const listed = await Promise.all(endpoints.urls.map((u) => servedModels(endpoints, u)));
      model = opts.modelName ?? listed[0][0]?.id ?? '';
      endpoints.urls.forEach((u, i) => {
        const m = listed[i].find((x) => x.id === model);
        if (!m) throw new UserError(`the server at ${u} does not serve model "${model}" (it serves ${listed[i].map((x) => `"${x.id}"`).join(', ') || 'nothing'})`);
        if (m.genstudy_weights !== undefined && m.genstudy_weights !== identity.engineId) {
          throw new UserError(`the server at ${u} serves "${model}" with weights ${m.genstudy_weights}, but checkpoint ${cp.dir} has ${identity.engineId}; ` +
            'a full checkpoint needs a server started on that folder (LoRA checkpoints share one server)');
        }
      });
    } else {
      model = `genstudy-lora-${identity.weights.split('lora:')[1].slice(0, 16)}`;
      const adapterDir = path.resolve(cp.dir);
      if (!fs.existsSync(adapterDir)) throw new UserError(`${adapterDir}: no such adapter folder`);
      const loadOn = async (u: string): Promise<void> => {
        try {
          await endpoints.postForText('/v1/load_lora_adapter', { lora_name: model, lora_path: adapterDir }, u);
        } catch (err) {
          if (err instanceof RemoteError && err.status !== undefined && /already (been )?loaded/i.test(err.serverMessage ?? '')) return;
          if (err instanceof RemoteError && err.status === 404) {
            throw new UserError(`the server at ${u} cannot load LoRA adapters at run time (POST /v1/load_lora_adapter answered 404): ` +
              'start vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, or use genstudy serve on the base model');
          }
          throw err;
        }
        const m = (await servedModels(endpoints, u)).find((x) => x.id === model);
        if (m?.genstudy_weights !== undefined && m.genstudy_weights !== identity.engineId) {
          throw new UserError(`the server at ${u} applies adapter ${cp.dir} to base weights ${m.genstudy_weights.replace(/\+lora$/, '')}, ` +
            `but its base model ${cp.base} has ${identity.engineId.replace(/\+lora$/, '')}`);
        }
      };
      await Promise.all(endpoints.urls.map(loadOn));
      reload = loadOn;
      unload = () => {
        for (const u of endpoints.urls) endpoints.postForText('/v1/unload_lora_adapter', { lora_name: model }, u).catch(() => undefined);
      };
    }
    const remote = new RemoteModel({
      endpoints, model, tokenizer, id: identity.engineId, maxLength, reload,
      promptsPerRequest: opts.promptsPerRequest, scoringMaxTokens: opts.scoringMaxTokens, logprobsForm: opts.logprobsForm, firstTokenTopK: opts.firstTokenTopK,
    });
    return { model: remote, dispose: () => unload?.(), source: endpoints.urls.join(' ') };
  };
  // What the loader reads locally (tokenizer, position limit), checked before anything is recorded.
  const check = (cp: CheckpointRef): void => {
    loadTokenizer(cp.tokenizer ?? cp.base ?? cp.dir);
    maxLengthOf(cp.base ?? cp.dir);
  };
  return Object.assign(loader, { endpoints, check });
}
