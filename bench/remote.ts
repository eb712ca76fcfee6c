// Evaluation throughput through `genstudy serve` processes (1, 2, 4) on this machine, against the
// built-in engine in process: examples per second of one synthetic-suite evaluation (first-token
// scoring) with a fresh store each time, so every answer comes from a model. Each server is a real
// child process on 127.0.0.1; the remote engine spreads requests over them.
//
// genstudy's overhead: the servers' raw throughput on exactly the requests genstudy sent. A
// recording pass goes through a loopback proxy that keeps every completions request body; those
// bodies are then posted straight to the same servers by a bare client (the same concurrency per
// server, no tokenising, caching, store or parsing), and raw / genstudy is the overhead ratio
// (1 = none).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.ts';
import { remoteLoader } from '../src/engine/remote/index.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../src/evaluate/index.ts';
import { builtinLoader, type ModelLoader } from '../src/engine/index.ts';
import { suiteVocabulary } from '../src/synth/index.ts';
import { syntheticTask } from '../src/tasks/index.ts';
import { writeTinyRun } from '../test/evaluate/tiny-model.ts';


/** A loopback proxy to `upstream` that records the bodies of POST /v1/completions. */
function recordingProxy(upstream: string): Promise<{ url: string; bodies: string[]; close: () => void }> {
  const bodies: string[] = [];
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/v1/completions') bodies.push(body.toString());
      // No keep-alive towards the server: the servers are stopped after each row, and a pooled socket
      // they reset would surface as an uncaught ECONNRESET.
      const headers = { ...req.headers, host: target.host, connection: 'close' };
      const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, agent: false, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.on('error', () => res.destroy());
        r.pipe(res);
      });
      up.on('error', (err) => { if (!res.headersSent) res.writeHead(502); res.end(String(err)); });
      up.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    resolve({ url: `http://127.0.0.1:${port}`, bodies, close: () => server.close() });
  }));
}

/** The HTTP status of one completions request. */
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' };
    const req = http.request(`${url}/v1/completions`, { method: 'POST', agent: false, headers }, (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Seconds to post every body to the servers, `perServer` in flight on each, as a bare client that
 * sends a request again when the server answers 5xx (as genstudy's client does), and how often.
 */
async function replay(urls: string[], bodies: string[], perServer: number): Promise<{ seconds: number; retried: number }> {
  let next = 0;
  let retried = 0;
  const t0 = performance.now();
  await Promise.all(urls.flatMap((url) => Array.from({ length: perServer }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      for (let attempt = 0; ; attempt++) {
        const status = await post(url, body);
        if (status === 200) break;
        if (status < 500 || attempt >= 5) throw new Error(`raw replay: HTTP ${status} from ${url}`);
        retried++;
      }
    }
  })));
  return { seconds: (performance.now() - t0) / 1000, retried };
}

export async function benchRemote(): Promise<Record<string, number>> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-remote-'));
  writeTinyRun(path.join(tmp, 'run'), { vocabulary: suiteVocabulary(syntheticTask()), seed: 3, hidden: 256, layers: 4 }, [0]);
  const modelDir = path.join(tmp, 'run', 'step-0');
  const checkpoints = discoverCheckpoints(modelDir).checkpoints;
  const testSets = await resolveTestSets(['synthetic'], { synthSeed: 1, synthSize: 60 });
  const variants = promptVariants(undefined, [0, 2]);
  let n = 0;
  const timed = async (loader: ModelLoader): Promise<{ perSecond: number; examples: number }> => {
    const t0 = performance.now();
    const s = await evaluateGrid({ storePath: path.join(tmp, `store-${n++}.sqlite`), run: 'bench', checkpoints, testSets, variants, loader });
    return { perSecond: s.computed / ((performance.now() - t0) / 1000), examples: s.computed };
  };
  const out: Record<string, number> = { cpus: os.cpus().length };
  await timed(builtinLoader()); // warm-up: the first evaluation in a process pays for wasm start-up (servers pay it before they print their URL)
  const local = await timed(builtinLoader());
  out.examples = local.examples;
  out.builtin_examples_per_s = local.perSecond;
  // The tiny random model rarely ranks the label words among its top 20 of 70 tokens, so with the
  // default firstTokenTopK most candidates are scored again by constrained continuation (3 forward
  // passes per example instead of 1); a trained model ranks them near the top. The scaling rows ask
  // for the top 100 (all 70 tokens), so they measure serving, not that fallback.
  for (const [servers, topK] of [[1, 20], [1, 100], [2, 100], [4, 100]]) {
    const started = await Promise.all(Array.from({ length: servers }, () => startServe(modelDir)));
    try {
      const urls = started.map((s) => s.url);
      const r = await timed(remoteLoader({ urls, concurrency: 2, firstTokenTopK: topK }));
      out[`serve${servers}_top${topK}_examples_per_s`] = r.perSecond;
      // The same requests again through the recorder (fresh store, so all are sent), then raw.
      const proxies = await Promise.all(urls.map((u) => recordingProxy(u)));
      try {
        await timed(remoteLoader({ urls: proxies.map((p) => p.url), concurrency: 2, firstTokenTopK: topK }));
      } finally {
        for (const p of proxies) p.close();
      }
      const bodies = proxies.flatMap((p) => p.bodies);
      const replayed = await replay(urls, bodies, 2);
      const raw = r.examples / replayed.seconds;
      out[`serve${servers}_top${topK}_raw_examples_per_s`] = raw;
      out[`serve${servers}_top${topK}_raw_requests_retried`] = replayed.retried;
      out[`serve${servers}_top${topK}_overhead_ratio`] = raw / r.perSecond;
    } finally {
      for (const s of started) s.child.kill('SIGTERM');
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [k, v] of Object.entries(await benchRemote())) console.log(`${k}\t${+v.toPrecision(4)}`);
}
