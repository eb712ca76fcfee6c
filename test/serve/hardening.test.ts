// genstudy serve against a hostile or careless client (real servers on 127.0.0.1, real requests):
// run-time LoRA loading only from the folders named at start, with errors that tell nothing about
// other paths and never quote a file; a bounded number of adapters; request bodies over the limit
// answered 413 (not a reset); prompt tokens bounded per request; and the event loop kept free
// (GET /health answers) while large requests arrive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loadModel, type BuiltinModel } from '../../src/engine/index.ts';
import { LoraAdapters } from '../../src/engine/builtin/lora.ts';
import { startServer, type RunningServer } from '../../src/serve/index.ts';
import { tempDir, tinyRun } from '../evaluate/helpers.ts';

let modelDir: string;
let model: BuiltinModel;
let root: string;
let outside: string;
let withRoots: RunningServer;
let noRoots: RunningServer;

const SECRET = 'TOPSECRET-do-not-print';

before(async () => {
  modelDir = path.join(tinyRun([0], 23, 'hardening-run'), 'step-0');
  model = await loadModel(modelDir);
  root = tempDir();
  outside = tempDir();
  for (const [dir, seed] of [[path.join(root, 'a'), 1], [path.join(root, 'b'), 2], [path.join(outside, 'c'), 3]] as const) {
    const adapters = LoraAdapters.create(model, { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn'] }, seed);
    await adapters.save(dir, modelDir);
    adapters.dispose();
  }
  // Files a hostile client would like to read through the server's error messages.
  fs.mkdirSync(path.join(outside, 'secret'));
  fs.writeFileSync(path.join(outside, 'secret', 'adapter_config.json'), `${SECRET} and more`);
  fs.mkdirSync(path.join(root, 'broken'));
  fs.writeFileSync(path.join(root, 'broken', 'adapter_config.json'), `${SECRET} inside the root`);
  fs.symlinkSync(path.join(outside, 'c'), path.join(root, 'link-out'));
  withRoots = await startServer({ modelDir, modelName: 'tiny', loraRoots: [root], maxLoras: 1, maxBodyBytes: 1 << 20, maxPromptTokens: 1000 });
  noRoots = await startServer({ modelDir, modelName: 'tiny' });
});
after(async () => { model?.dispose(); await withRoots?.close(); await noRoots?.close(); });

async function post(server: RunningServer, route: string, body: unknown): Promise<{ status: number; message: string }> {
  const res = await fetch(`${server.url}${route}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await res.text();
  let message = text;
  try { message = (JSON.parse(text) as { error: { message: string } }).error.message; } catch { /* plain text */ }
  return { status: res.status, message };
}

const load = (server: RunningServer, name: string, p: string) => post(server, '/v1/load_lora_adapter', { lora_name: name, lora_path: p });

test('run-time LoRA loading: off without --lora-root; only real paths inside the roots; errors leak neither existence nor contents; ' +
  'adapters capped', async () => {
  const off = await load(noRoots, 'a', path.join(root, 'a'));
  assert.equal(off.status, 404);
  assert.match(off.message, /run-time LoRA loading is off .*--lora-root/);

  // Outside the roots: one answer whether the path exists, is an adapter, or holds a secret.
  const answers = await Promise.all([path.join(outside, 'c'), path.join(outside, 'secret'), path.join(outside, 'missing'), '/etc',
    path.join(root, '..', path.basename(outside), 'c'), path.join(root, 'link-out')]
    .map(async (p) => [p, await load(withRoots, 'x', p)] as const));
  for (const [p, r] of answers) {
    assert.equal(r.status, 400, p);
    assert.equal(r.message,
      `lora_path ${JSON.stringify(p)} is not inside the adapter folders this server loads from (genstudy serve --lora-root DIR)`, p);
  }
  // Inside the roots: a broken adapter is named, its file's contents are not quoted.
  const broken = await load(withRoots, 'x', path.join(root, 'broken'));
  assert.equal(broken.status, 400);
  assert.match(broken.message, /cannot load the LoRA adapter at .*broken.*adapter_config\.json: not a valid JSON object/);
  for (const [, r] of [...answers, ['', broken] as const]) assert.ok(!r.message.includes('TOPSECRET'), r.message);

  assert.equal((await load(withRoots, 'a', path.join(root, 'a'))).status, 200);
  const second = await load(withRoots, 'b', path.join(root, 'b'));
  assert.equal(second.status, 429);
  assert.match(second.message, /1 LoRA adapters are loaded, the most this server holds/);
  assert.equal((await post(withRoots, '/v1/unload_lora_adapter', { lora_name: 'a' })).status, 200);
  assert.equal((await load(withRoots, 'b', path.join(root, 'b'))).status, 200);
  await post(withRoots, '/v1/unload_lora_adapter', { lora_name: 'b' });
});

/** Sends `bytes` bytes of a JSON body (without Content-Length when `chunked`) and resolves with the answer's status and text. */
function sendLarge(server: RunningServer, bytes: number, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(server.url);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/completions',
      headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(bytes) }) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(1 << 16, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) { req.once('drain', pump); return; }
      }
      req.end();
    };
    pump();
  });
}

test('bodies over the limit are answered 413 with a message, declared (Content-Length) or streamed (chunked), not a reset', async () => {
  for (const [bytes, chunked] of [[30 << 20, false], [5 << 20, true]] as const) {
    const r = await sendLarge(withRoots, bytes, chunked);
    assert.equal(r.status, 413, `${bytes} bytes, chunked ${chunked}`);
    assert.match(JSON.parse(r.text).error.message, /request body over 1048576 bytes \(genstudy serve --max-body-mb raises the limit\)/);
  }
  assert.equal((await fetch(`${withRoots.url}/health`)).status, 200);
});

test('prompt tokens per request are bounded: token ids counted, text refused before tokenising', async () => {
  const ids = await post(withRoots, '/v1/completions', { prompt: [Array(600).fill(3), Array(401).fill(3)], max_tokens: 0 });
  assert.equal(ids.status, 413);
  assert.match(ids.message, /the request has 1001 prompt tokens; this server takes at most 1000 per request/);
  const text = await post(withRoots, '/v1/completions', { prompt: 'the dog '.repeat(2001), max_tokens: 0 });
  assert.equal(text.status, 413);
  assert.match(text.message, /the prompt text has 16008 characters; this server takes at most 1000 prompt tokens per request \(16000 characters/);
  assert.equal((await post(withRoots, '/v1/completions', { prompt: 'the dog sees the cat', max_tokens: 1 })).status, 200);
});

/**
 * CPU time the main thread has used so far, in clock ticks (Linux: utime + stime of
 * /proc/self/task/<pid>/stat, proc(5) fields 14 and 15). A worker thread is another task, so what it
 * computes is not counted; unlike wall-clock waits, this does not grow when the machine is loaded.
 */
function mainThreadCpuTicks(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

test('GET /health keeps answering while large requests are parsed and tokenised, and the tokenising is not on the event loop ' +
  '(default limits)', async (t) => {
  if (!fs.existsSync(`/proc/self/task/${process.pid}/stat`)) { t.skip('needs Linux\'s per-thread CPU times (/proc/self/task/<pid>/stat)'); return; }
  // Text prompts the limits let through (just under 16 characters per allowed token) and ones they
  // refuse before tokenising (just under the body limit). The old server tokenised on the event
  // loop, and health checks waited seconds. No wall-clock wait is asserted (it grows with the
  // machine's load): health checks are counted, and the main thread's CPU time is compared with
  // what tokenising costs it (here 6 ticks against 50; 57 with the tokenising moved back onto the
  // event loop).
  const allowed = { prompt: 'the dog sees the cat . '.repeat(45_000), max_tokens: 1 };
  const refused = { prompt: 'the dog sees the cat . '.repeat(340_000), max_tokens: 1 };
  let stop = false;
  let answered = 0;
  const poll = (async () => {
    while (!stop) {
      assert.equal((await fetch(`${noRoots.url}/health`)).status, 200);
      answered++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const answers = await Promise.all([allowed, refused, allowed, refused].map((body) => post(noRoots, '/v1/completions', body)));
  stop = true;
  await poll;
  for (const a of answers) assert.equal(a.status, 413, a.message);
  assert.match(answers[0].message, /the request has \d+ prompt tokens; this server takes at most 65536 per request/);
  assert.match(answers[1].message, /the prompt text has 7820000 characters/);
  assert.ok(answered > 5, `${answered} health answers meanwhile`);

  // Four allowed prompts again, without the health checks (their number grows with the wall time):
  // the server's main thread must spend less than half of what tokenising them there costs.
  model.tokenizer.encode(allowed.prompt);
  const start = mainThreadCpuTicks();
  for (let i = 0; i < 4; i++) assert.ok(model.tokenizer.encode(allowed.prompt).length > 65_536);
  const tokenising = mainThreadCpuTicks() - start;
  assert.ok(tokenising >= 8, `tokenising four allowed prompts took ${tokenising} ticks of CPU: too few to compare with`);
  const before = mainThreadCpuTicks();
  const again = await Promise.all([allowed, allowed, allowed, allowed].map((body) => post(noRoots, '/v1/completions', body)));
  const mainThread = mainThreadCpuTicks() - before;
  for (const a of again) assert.equal(a.status, 413, a.message);
  t.diagnostic(`main thread: ${mainThread} ticks of CPU serving four allowed prompts; ${tokenising} to tokenise them there`);
  assert.ok(mainThread < tokenising / 2,
    `the main thread used ${mainThread} ticks of CPU serving four allowed prompts; tokenising them there costs ${tokenising}`);
});
