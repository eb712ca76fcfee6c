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
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { LoraAdapters } from '../engine/builtin/lora.ts';
import { loadModel } from '../engine/builtin/load.ts';
import type { BuiltinModel } from '../engine/builtin/model.ts';
import { CompletionEngine } from './completions.ts';
import { completionRequestSchema, describeZodError, HttpError, loadAdapterSchema, unloadAdapterSchema } from './protocol.ts';

export interface ServeOptions {
  modelDir: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The name clients send as `model` (default: the folder's name). */
  modelName?: string;
  maxBatchTokens?: number;
  /** Where one line per request problem goes (default: nowhere). */
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  modelName: string;
  /** Requests answered and engine calls made so far (concurrent requests share engine calls). */
  stats(): { requests: number; engineCalls: number };
  close(): Promise<void>;
}

interface Served { model: BuiltinModel; root: string; parent: string | null; weights: string }

const MAX_BODY = 256 << 20;

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) { reject(new HttpError(413, `request body over ${MAX_BODY} bytes`)); req.destroy(); return; }
      parts.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      try {
        resolve(text === '' ? {} : JSON.parse(text));
      } catch (err) {
        reject(new HttpError(400, `request body is not valid JSON (${(err as Error).message})`));
      }
    });
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const dir = path.resolve(opts.modelDir);
  const base = await loadModel(dir, opts.maxBatchTokens === undefined ? {} : { maxBatchTokens: opts.maxBatchTokens });
  const name = opts.modelName ?? path.basename(dir);
  const served = new Map<string, Served>([[name, { model: base, root: dir, parent: null, weights: base.id }]]);
  const engine = new CompletionEngine();
  const created = Math.floor(Date.now() / 1000);
  let counter = 0;

  const modelNamed = (wanted: string | undefined): [string, Served] => {
    const key = wanted ?? name;
    const s = served.get(key);
    if (!s) throw new HttpError(404, `The model \`${key}\` does not exist (served: ${[...served.keys()].join(', ')}).`);
    return [key, s];
  };

  const routes: Record<string, (body: unknown) => Promise<[number, unknown]>> = {
    'GET /health': async () => [200, { status: 'ok' }],
    'GET /v1/models': async () => [200, {
      object: 'list',
      data: [...served].map(([id, s]) => ({
        id, object: 'model', created, owned_by: 'genstudy', root: s.root, parent: s.parent, max_model_len: s.model.maxLength, genstudy_weights: s.weights,
      })),
    }],
    'POST /v1/completions': async (body) => {
      const parsed = completionRequestSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      const [modelName, s] = modelNamed(parsed.data.model);
      const { choices, usage } = await engine.complete(s.model, parsed.data);
      return [200, { id: `cmpl-${++counter}`, object: 'text_completion', created: Math.floor(Date.now() / 1000), model: modelName, choices, usage }];
    },
    'POST /v1/load_lora_adapter': async (body) => {
      const parsed = loadAdapterSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      const { lora_name: loraName, lora_path: loraPath } = parsed.data;
      const root = path.resolve(loraPath);
      const have = served.get(loraName);
      if (have) {
        if (have.root === root && have.parent === name) return [200, `Success: LoRA adapter '${loraName}' was already loaded.`];
        throw new HttpError(400, `The lora adapter '${loraName}' has already been loaded (from ${have.root}).`);
      }
      let merged: BuiltinModel;
      try {
        const adapters = LoraAdapters.load(base, root);
        merged = adapters.merged();
        adapters.dispose();
      } catch (err) {
        throw new HttpError(400, `cannot load the LoRA adapter at ${root}: ${(err as Error).message}`);
      }
      merged.maxBatchTokens = base.maxBatchTokens;
      served.set(loraName, { model: merged, root, parent: name, weights: `${base.id}+lora` });
      return [200, `Success: LoRA adapter '${loraName}' added successfully.`];
    },
    'POST /v1/unload_lora_adapter': async (body) => {
      const parsed = unloadAdapterSchema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
      const s = served.get(parsed.data.lora_name);
      if (!s || s.parent === null) throw new HttpError(404, `The lora adapter '${parsed.data.lora_name}' is not loaded.`);
      served.delete(parsed.data.lora_name);
      // Requests already queued for it still hold the model; it goes when they are answered.
      setTimeout(() => s.model.dispose(), 60_000).unref();
      return [200, `Success: LoRA adapter '${parsed.data.lora_name}' removed successfully.`];
    },
  };

  const server = http.createServer((req, res) => {
    const route = routes[`${req.method} ${(req.url ?? '').split('?')[0]}`];
    void (async () => {
      try {
        if (!route) throw new HttpError(404, `no route ${req.method} ${req.url}`);
        const body = req.method === 'POST' ? await readBody(req) : undefined;
        const [status, out] = await route(body);
        send(res, status, out);
      } catch (err) {
        const e = err instanceof HttpError ? err : new HttpError(500, (err as Error).message ?? String(err), 'InternalServerError');
        if (e.status >= 500) opts.log?.(`${req.method} ${req.url}: ${(err as Error).stack ?? e.message}`);
        if (!res.headersSent) send(res, e.status, e.body());
      }
    })();
  });
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
    stats: () => ({ requests: counter, engineCalls: engine.engineCalls }),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const s of served.values()) s.model.dispose();
    }),
  };
}
