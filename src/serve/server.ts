// `genstudy serve`: the built-in engine behind an OpenAI-compatible HTTP API (node:http; the API is
// four routes, no framework needed):
//   POST /v1/completions          prompt as text or token ids; echo; logprobs (top-k); prompt_logprobs
//                                 (vLLM's form); max_tokens; stop; greedy only (temperature 0)
//   GET  /v1/models               the base model and the loaded adapters, with genstudy_weights
//                                 (the engine's weights identity) so clients can check what is served
//   GET  /health                  200 when up
//   POST /v1/load_lora_adapter    {lora_name, lora_path}: a PEFT adapter folder on the base model,
//   POST /v1/unload_lora_adapter  {lora_name}           as vLLM's runtime LoRA loading does it
// The model a request names (`model`) is the base model or a loaded adapter; one server evaluates
// every LoRA checkpoint of a run.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { UserError } from '../errors.ts';
import { LoraAdapters, loadModel, type BuiltinModel } from '../engine/index.ts';
import { CompletionEngine } from './completions.ts';
import { MergedCopies, MergedCopy, type CopyCounts } from './merged-copies.ts';
import { completionRequestSchema, describeZodError, HttpError, loadAdapterSchema, unloadAdapterSchema } from './protocol.ts';
import { SERVE_PROFILES, type ServeProfile } from './sampling.ts';
import { FASTAPI_NOT_FOUND, VLLM, vllmModelCard } from './vllm-profile.ts';

export interface ServeOptions {
  modelDir: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The name clients send as `model` (default: the folder's name). */
  modelName?: string;
  maxBatchTokens?: number;
  /**
   * Folders whose adapter folders POST /v1/load_lora_adapter may load (real paths are compared, so
   * a link out of them does not count). None (the default): run-time LoRA loading is off and the
   * route answers 404, as vLLM keeps it off unless asked.
   */
  loraRoots?: string[];
  /**
   * Merged copies of the base model in memory at once (one per loaded adapter, and one per unloaded
   * or evicted adapter whose requests are still being answered); default 4. A load past it waits
   * for a copy to be freed (merged-copies.ts); under the genstudy profile, a load while this many
   * adapters are loaded is answered 429.
   */
  maxLoras?: number;
  /** Largest request body in bytes (default 8 MiB); larger ones are answered 413. */
  maxBodyBytes?: number;
  /** Prompt tokens per completions request (default 65536); more is answered 413. */
  maxPromptTokens?: number;
  /** Where one line per request problem goes (default: nowhere). */
  log?: (line: string) => void;
  /**
   * 'vllm': answer as vLLM's OpenAI server does where it differs (vllm-profile.ts), so that tests
   * of the remote engine check vLLM's behaviour rather than genstudy's reading of it.
   */
  profile?: ServeProfile;
  /**
   * Wait this long after loading before listening, as vLLM refuses connections while it loads a
   * large model for minutes (clients must wait for it; a fixed --port makes that testable).
   */
  startupDelayMs?: number;
  /**
   * Called once a request's handling is over (answered, or dropped when its client went away), after
   * any line logged for it: how a caller learns that a request is finished without timing it.
   */
  onRequestDone?: (req: http.IncomingMessage) => void;
}

export const SERVE_DEFAULTS = { maxLoras: 4, maxBodyBytes: 8 << 20, maxPromptTokens: 65_536, profile: SERVE_PROFILES[0] } as const;

export interface RunningServer {
  url: string;
  port: number;
  modelName: string;
  /**
   * Requests answered and engine calls made so far (concurrent requests share engine calls), and the
   * adapters' merged copies of the model (the base model not counted).
   */
  stats(): { requests: number; engineCalls: number; loraCopies: CopyCounts };
  close(): Promise<void>;
}

/**
 * A served model: the base, or an adapter's merged copy. An adapter evicted under the vLLM profile
 * has no copy until a request names it (`reloading` while it is merged again).
 */
interface Served {
  copy?: MergedCopy<BuiltinModel>; reloading?: Promise<void>; root: string; parent: string | null; weights: string; lastUsed: number;
}

/** A body over the limit: answered 413 while the rest is read and dropped (up to this many times the limit, then the connection is cut). */
const DRAIN_FACTOR = 64;

class BodyTooLarge extends HttpError {
  constructor(limit: number) {
    super(413, `request body over ${limit} bytes (genstudy serve --max-body-mb raises the limit)`);
  }
}

/** The client went away before its body was read: nothing to answer, nothing of ours failed. */
class ClientGone extends Error {}

function readBody(req: http.IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) { reject(new BodyTooLarge(limit)); return; }
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (over) return;
      if (size > limit) { over = true; parts.length = 0; reject(new BodyTooLarge(limit)); return; }
      parts.push(c);
    });
    req.on('end', () => {
      if (over) return;
      const text = Buffer.concat(parts).toString('utf8');
      try {
        resolve(text === '' ? {} : JSON.parse(text));
      } catch (err) {
        reject(new HttpError(400, `request body is not valid JSON (${(err as Error).message.replace(/, ".*" is not valid JSON$/s, '')})`));
      }
    });
    req.on('error', () => reject(new ClientGone()));
    req.on('close', () => { if (!req.complete) reject(new ClientGone()); });
  });
}

/**
 * The real path of an adapter folder a client named, when it lies in one of the roots; the same
 * answer for a path outside them whether or not it exists, so the API tells nothing about the
 * rest of the file system.
 */
function adapterFolder(wanted: string, roots: readonly string[]): string {
  const outside = new HttpError(400,
    `lora_path ${JSON.stringify(wanted)} is not inside the adapter folders this server loads from (genstudy serve --lora-root DIR)`);
  const lexical = path.resolve(wanted);
  let real: string;
  try {
    real = fs.realpathSync(lexical);
  } catch {
    if (roots.some((r) => lexical.startsWith(r + path.sep))) throw new HttpError(400, `no adapter folder at ${lexical}`);
    throw outside;
  }
  if (!roots.some((r) => real.startsWith(r + path.sep))) throw outside;
  return real;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const dir = path.resolve(opts.modelDir);
  const loraRoots = (opts.loraRoots ?? []).map((r) => {
    try {
      const real = fs.realpathSync(r);
      if (!fs.statSync(real).isDirectory()) throw new Error('not a folder');
      return real;
    } catch {
      throw new UserError(`--lora-root ${r}: not a folder`);
    }
  });
  const maxLoras = opts.maxLoras ?? SERVE_DEFAULTS.maxLoras;
  const maxBodyBytes = opts.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes;
  const maxPromptTokens = opts.maxPromptTokens ?? SERVE_DEFAULTS.maxPromptTokens;
  const profile = opts.profile ?? SERVE_DEFAULTS.profile;
  const base = await loadModel(dir, opts.maxBatchTokens === undefined ? {} : { maxBatchTokens: opts.maxBatchTokens });
  if (profile === 'vllm' && loraRoots.length > 0) {
    const refusal = VLLM.loraRefusal(base.config);
    if (refusal) { base.dispose(); throw new UserError(`--lora-root with --mimic vllm: ${refusal}`); }
  }
  const name = opts.modelName ?? path.basename(dir);
  // The base model is never retired, so its copy is outside the adapters' count.
  const served = new Map<string, Served>([[name, { copy: new MergedCopy(base), root: dir, parent: null, weights: base.id, lastUsed: 0 }]]);
  let clock = 0;
  const adapters = (): Served[] => [...served.values()].filter((s) => s.parent !== null);
  /** An adapter folder merged into a copy of the base model; a folder it cannot read is the client's error, as the profile words it. */
  const adapterModel = (root: string): BuiltinModel => {
    let lora: LoraAdapters;
    try {
      lora = LoraAdapters.load(base, root);
    } catch (err) {
      // The reason names the file and the field; file contents are never quoted (readJsonFile does not).
      if (err instanceof UserError) {
        if (profile === 'vllm') throw new HttpError(500, `cannot load the LoRA adapter at ${root}: ${err.message}`, 'InternalServerError');
        throw new HttpError(400, `cannot load the LoRA adapter at ${root}: ${err.message}`);
      }
      throw err;
    }
    try {
      const merged = lora.merged();
      merged.maxBatchTokens = base.maxBatchTokens;
      return merged;
    } finally {
      lora.dispose();
    }
  };
  /**
   * Under the vLLM profile, the adapter whose copy makes room for a waiting one: the least recently
   * used (vLLM's LRUCacheWorkerLoRAManager), among those no request is using if any; else the least
   * recently used busy one, which answers its requests and is then freed, while new requests for it
   * wait their turn, so that a stream of requests for loaded adapters cannot starve a waiting one.
   * The genstudy profile evicts nothing: only an unload frees a copy.
   */
  const evict = (): MergedCopy<BuiltinModel> | undefined => {
    if (profile !== 'vllm') return undefined;
    const holding = adapters().filter((s) => s.copy !== undefined);
    const idle = holding.filter((s) => s.copy!.users === 0);
    const pool = idle.length > 0 ? idle : holding;
    if (pool.length === 0) return undefined;
    const lru = pool.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
    const copy = lru.copy!;
    lru.copy = undefined;
    return copy;
  };
  const copies = new MergedCopies<BuiltinModel>(maxLoras, evict);
  /** Adapters being merged for a load request, by name. */
  const arriving = new Map<string, Promise<unknown>>();
  const engine = new CompletionEngine();
  const created = Math.floor(Date.now() / 1000);
  let counter = 0;

  /**
   * Runs `fn` on the model a request names, which is not freed before `fn` settles. Under the vLLM
   * profile an evicted adapter is merged again first (vLLM reloads it from its path), once room is free.
   */
  const withModel = async <T>(wanted: string | undefined, fn: (key: string, model: BuiltinModel) => Promise<T>): Promise<T> => {
    const key = wanted ?? name;
    for (;;) {
      const s = served.get(key);
      if (!s) throw new HttpError(404, `The model \`${key}\` does not exist (served: ${[...served.keys()].join(', ')}).`);
      if (s.copy) {
        s.lastUsed = ++clock;
        // Taken in the same step as it is found: an eviction in between would free it under the request.
        return copies.use(s.copy, (model) => fn(key, model));
      }
      s.reloading ??= copies.create(() => adapterModel(s.root)).then((copy) => {
        // Unloaded while it waited for room: nothing will use it.
        if (served.get(key) === s) s.copy = copy;
        else copies.retire(copy);
      }).finally(() => { s.reloading = undefined; });
      await s.reloading;
    }
  };

  const routes: Record<string, (body: unknown) => Promise<[number, unknown]>> = {
    'GET /health': async () => [200, { status: 'ok' }],
    'GET /v1/models': async () => [200, {
      object: 'list',
      data: [...served].map(([id, s]) => (profile === 'vllm' ? vllmModelCard(id, s, created, base.maxLength) : {
        id, object: 'model', created, owned_by: 'genstudy', root: s.root, parent: s.parent,
        max_model_len: base.maxLength, genstudy_weights: s.weights,
      })),
    }],
    'POST /v1/completions': async (body) => {
      const parsed = completionRequestSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      return withModel(parsed.data.model, async (modelName, model): Promise<[number, unknown]> => {
        const { choices, usage } = await engine.complete(model, parsed.data, maxPromptTokens, profile);
        const created = Math.floor(Date.now() / 1000);
        return [200, { id: `cmpl-${++counter}`, object: 'text_completion', created, model: modelName, choices, usage }];
      });
    },
    'POST /v1/load_lora_adapter': async (body) => {
      if (loraRoots.length === 0) {
        if (profile === 'vllm') return [404, FASTAPI_NOT_FOUND];
        throw new HttpError(404, 'run-time LoRA loading is off on this server: start it with genstudy serve --lora-root DIR (the folders ' +
          'adapters may be loaded from)');
      }
      const parsed = loadAdapterSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      const { lora_name: loraName, lora_path: loraPath } = parsed.data;
      const root = profile === 'vllm' ? VLLM.adapterFolder(loraName, loraPath, loraRoots, adapterFolder) : adapterFolder(loraPath, loraRoots);
      // The same name being loaded now (waiting for room): answered as a load after it would be.
      for (let under = arriving.get(loraName); under; under = arriving.get(loraName)) await under.catch(() => undefined);
      const have = served.get(loraName);
      if (have) {
        if (profile === 'vllm') throw new HttpError(400, VLLM.alreadyLoaded(loraName));
        if (have.root === root && have.parent === name) return [200, `Success: LoRA adapter '${loraName}' was already loaded.`];
        throw new HttpError(400, `The lora adapter '${loraName}' has already been loaded (from ${have.root}).`);
      }
      // vLLM keeps every added adapter and evicts the least recently used copy to make room (`evict`);
      // genstudy refuses one more while the limit's worth are loaded, as only the client can free one.
      const loaded = adapters().length + arriving.size;
      if (profile !== 'vllm' && loaded >= maxLoras) {
        throw new HttpError(429, `${loaded} LoRA adapters are loaded, the most this server holds (genstudy serve --max-loras); unload one first`);
      }
      // Past the limit only by copies still answering requests for unloaded adapters: wait for them.
      const job = copies.create(() => adapterModel(root));
      arriving.set(loraName, job);
      let copy: MergedCopy<BuiltinModel>;
      try {
        copy = await job;
      } finally {
        arriving.delete(loraName);
      }
      served.set(loraName, { copy, root, parent: name, weights: `${base.id}+lora`, lastUsed: ++clock });
      return [200, `Success: LoRA adapter '${loraName}' added successfully.`];
    },
    'POST /v1/unload_lora_adapter': async (body) => {
      if (loraRoots.length === 0 && profile === 'vllm') return [404, FASTAPI_NOT_FOUND];
      const parsed = unloadAdapterSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      const s = served.get(parsed.data.lora_name);
      if (!s || s.parent === null) {
        throw new HttpError(404,
          profile === 'vllm' ? VLLM.notLoaded(parsed.data.lora_name) : `The lora adapter '${parsed.data.lora_name}' is not loaded.`);
      }
      served.delete(parsed.data.lora_name);
      // Freed now, or when the requests using it are answered.
      if (s.copy) copies.retire(s.copy);
      return [200, `Success: LoRA adapter '${parsed.data.lora_name}' removed successfully.`];
    },
  };

  const server = http.createServer((req, res) => {
    const route = routes[`${req.method} ${(req.url ?? '').split('?')[0]}`];
    void (async () => {
      try {
        if (!route && profile === 'vllm') { send(res, 404, FASTAPI_NOT_FOUND); return; }
        if (!route) throw new HttpError(404, `no route ${req.method} ${req.url}`);
        const body = req.method === 'POST' ? await readBody(req, maxBodyBytes) : undefined;
        const [status, out] = await route(body);
        send(res, status, out);
      } catch (err) {
        if (err instanceof ClientGone) { req.destroy(); return; }
        const e = err instanceof HttpError ? err : new HttpError(500, (err as Error).message ?? String(err), 'InternalServerError');
        if (e.status >= 500) opts.log?.(`${req.method} ${req.url}: ${(err as Error).stack ?? e.message}`);
        if (err instanceof BodyTooLarge) {
          // Answer, then read and drop the rest so the client sees the 413 rather than a reset; a
          // client that keeps sending far past the limit is cut off.
          res.setHeader('connection', 'close');
          let dropped = 0;
          req.on('data', (c: Buffer) => { dropped += c.length; if (dropped > DRAIN_FACTOR * maxBodyBytes) req.destroy(); });
          req.resume();
        }
        if (!res.headersSent) send(res, e.status, e.body());
      } finally {
        opts.onRequestDone?.(req);
      }
    })();
  });
  if (opts.startupDelayMs) await new Promise((r) => setTimeout(r, opts.startupDelayMs));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    modelName: name,
    stats: () => ({ requests: counter, engineCalls: engine.engineCalls, loraCopies: copies.counts() }),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      copies.close();
      base.dispose();
      void engine.close();
    }),
  };
}
