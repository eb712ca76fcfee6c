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
import { readJsonFile } from '../hf/checkpoint.ts';
import { loadTokenizer } from '../hf/tokenizer.ts';
import { IDENTITY_CHECKS, type CheckpointRef, type ModelHandle, type ModelLoader } from '../../types.ts';
import { identifyCheckpoint } from '../model-identity.ts';
import { RemoteEndpoints, RemoteError, type EndpointOptions } from './endpoints.ts';
import { RemoteModel, type RemoteModelOptions } from './model.ts';
import { checkServedModel, probeAgainstBuiltin, type IdentityCheck, type ServedModel } from './served-identity.ts';

/** What a failed LoRA load means, with the server's own words: a missing route, an adapter the server cannot see, or a load failure. */
function loraLoadProblem(url: string, adapterDir: string, err: RemoteError): string {
  const said = err.serverMessage ?? '';
  if (err.status === 404 && /^(Not Found|\{"detail":"Not Found"\}|"Not Found")$/.test(said.trim())) {
    return `the server at ${url} has no LoRA loading route (POST /v1/load_lora_adapter: HTTP 404 "${said}"): start vLLM with --enable-lora ` +
      '(and --max-lora-rank at least the adapter\'s r) and the environment variable VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, or genstudy ' +
      'serve with --lora-root';
  }
  if (err.status === 404) {
    return `the server at ${url} cannot find adapter ${adapterDir} (HTTP 404: ${said}): the path is this machine's, ` +
      'so the server must see the same files (a shared disk, mounted at the same path)';
  }
  return `the server at ${url} could not load adapter ${adapterDir} (HTTP ${err.status}: ${said})`;
}

export interface RemoteLoaderOptions
  extends EndpointOptions, Pick<RemoteModelOptions, 'promptsPerRequest' | 'scoringMaxTokens' | 'logprobsForm' | 'firstTokenTopK'> {
  /** Base URLs of the servers (http://host:port or http://host:port/v1). */
  urls: string[];
  /** The served model's name (default: the first model /v1/models lists). */
  modelName?: string;
  /** How a server that does not report its weights is matched with the checkpoint (served-identity.ts; default 'path'). */
  identity?: IdentityCheck;
}


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
  const identityCheck = opts.identity ?? IDENTITY_CHECKS[0];
  const loader = async (cp: CheckpointRef): Promise<ModelHandle> => {
    const identity = identifyCheckpoint(cp);
    const local = cp.base ?? cp.dir;
    const tokenizer = loadTokenizer(cp.tokenizer ?? local);
    const maxLength = maxLengthOf(local);
    const listed = await Promise.all(endpoints.urls.map((u) => servedModels(endpoints, u)));
    // The base model: the one named, else the first listed without a parent (vLLM lists adapters after it).
    const baseName = opts.modelName ?? (listed[0].find((x) => !x.parent) ?? listed[0][0])?.id ?? '';
    const baseCards = endpoints.urls.map((u, i) => {
      const m = listed[i].find((x) => x.id === baseName);
      if (!m) throw new UserError(
        `the server at ${u} does not serve model "${baseName}" (it serves ${listed[i].map((x) => `"${x.id}"`).join(', ') || 'nothing'})`);
      return m;
    });
    // The server's context length bounds every prompt (vLLM: prompt <= max_model_len - max_tokens).
    const served = baseCards.map((m) => m.max_model_len).filter((n): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0);
    const contextLimit = Math.min(maxLength, ...served);
    let model = baseName;
    let unload: (() => void) | undefined;
    let reload: ((url: string) => Promise<void>) | undefined;
    const remoteFor = (name: string): RemoteModel => new RemoteModel({
      endpoints, model: name, tokenizer, id: identity.engineId, maxLength, contextLimit, reload,
      promptsPerRequest: opts.promptsPerRequest, scoringMaxTokens: opts.scoringMaxTokens,
      logprobsForm: opts.logprobsForm, firstTokenTopK: opts.firstTokenTopK,
    });
    if (cp.base === undefined) {
      for (const [i, u] of endpoints.urls.entries()) {
        await checkServedModel(u, baseCards[i], path.resolve(cp.dir), identity.engineId, identityCheck,
          () => probeAgainstBuiltin(remoteFor(baseName), cp));
      }
    } else {
      model = `genstudy-lora-${identity.weights.split('lora:')[1].slice(0, 16)}`;
      const adapterDir = path.resolve(cp.dir);
      if (!fs.existsSync(adapterDir)) throw new UserError(`${adapterDir}: no such adapter folder`);
      const baseDir = path.resolve(cp.base);
      const loadOn = async (u: string): Promise<void> => {
        try {
          // A failed load is not retried: vLLM answers 500 for an adapter it cannot load, which no retry mends.
          await endpoints.postForText('/v1/load_lora_adapter', { lora_name: model, lora_path: adapterDir }, u, { retryServerErrors: false });
        } catch (err) {
          if (!(err instanceof RemoteError) || err.status === undefined) throw err;
          if (/already (been )?loaded/i.test(err.serverMessage ?? '')) {
            /* loaded by an earlier run of this evaluation: its name is its weights' hash */
          } else {
            throw new UserError(loraLoadProblem(u, adapterDir, err));
          }
        }
        const cards = await servedModels(endpoints, u);
        const card = cards.find((x) => x.id === model);
        if (card?.parent !== undefined && card.parent !== null && card.parent !== baseName) {
          throw new UserError(`the server at ${u} applies adapter ${adapterDir} to its model "${card.parent}", not to "${baseName}"`);
        }
        const base = cards.find((x) => x.id === baseName) ?? baseCards[endpoints.urls.indexOf(u)];
        await checkServedModel(u, card?.genstudy_weights !== undefined ? { ...base, genstudy_weights: card.genstudy_weights } : base,
          baseDir, identity.engineId, identityCheck, () => probeAgainstBuiltin(remoteFor(model), cp));
      };
      for (const u of endpoints.urls) await loadOn(u);
      reload = loadOn;
      unload = () => {
        for (const u of endpoints.urls) endpoints.postForText('/v1/unload_lora_adapter', { lora_name: model }, u).catch(() => undefined);
      };
    }
    return { model: remoteFor(model), dispose: () => unload?.(), source: endpoints.urls.join(' ') };
  };
  // What the loader reads locally (tokenizer, position limit), checked before anything is recorded.
  const check = (cp: CheckpointRef): void => {
    loadTokenizer(cp.tokenizer ?? cp.base ?? cp.dir);
    maxLengthOf(cp.base ?? cp.dir);
  };
  return Object.assign(loader, { endpoints, check });
}
