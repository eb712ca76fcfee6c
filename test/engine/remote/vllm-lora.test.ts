// LoRA checkpoints through genstudy serve's vLLM profile, on a tiny Llama (vLLM serves no LoRA on
// GPT-2): adapters loaded by name equal the built-in merge; beyond --max-loras the least recently
// used adapter is evicted and reloaded on demand (no 429); vLLM's 404 for a missing route and for
// an adapter path the server cannot see are told apart, with the server's words; a failed load
// (vLLM's 500) is not retried.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinLoader, type ModelHandle } from '../../../src/engine/index.ts';
import { remoteLoader } from '../../../src/engine/remote/index.ts';
import { startServer, type RunningServer } from '../../../src/serve/index.ts';
import { tempDir, tinyRun } from '../../evaluate/helpers.ts';
import { writeTinyLlama } from './tiny-llama.ts';

let baseDir: string;
let adapters: string;
let server: RunningServer;

before(async () => {
  const root = tempDir();
  baseDir = path.join(root, 'llama');
  adapters = path.join(root, 'adapters');
  await writeTinyLlama(baseDir, adapters, { a: 1, b: 2, c: 3 });
  fs.mkdirSync(path.join(adapters, 'broken'));
  fs.writeFileSync(path.join(adapters, 'broken', 'adapter_config.json'), '{"r": "two"}');
  fs.copyFileSync(path.join(adapters, 'a', 'adapter_model.safetensors'), path.join(adapters, 'broken', 'adapter_model.safetensors'));
  server = await startServer({ modelDir: baseDir, profile: 'vllm', loraRoots: [adapters], maxLoras: 1 });
});

after(async () => { await server?.close(); });

const REQS = [{ context: 'the dog sees', continuation: ' the cat' }, { context: 'a cat likes', continuation: ' the pear .' }];

test('adapters through the vLLM profile equal the built-in merge; with max-loras 1 the least recently used is evicted and reloaded', async () => {
  const loader = remoteLoader({ urls: [server.url] });
  const handles: ModelHandle[] = [];
  for (const name of ['a', 'b', 'c']) handles.push(await loader({ step: 0, dir: path.join(adapters, name), base: baseDir }));
  // Three adapters loaded on a server holding one at a time: each still answers as its own merge.
  for (const [i, name] of ['a', 'b', 'c', 'a'].entries()) {
    const local = await builtinLoader()({ step: 0, dir: path.join(adapters, name), base: baseDir });
    const want = await local.model.score(REQS);
    local.dispose();
    const got = await handles[i % 3].model.score(REQS);
    got.forEach((g, j) => assert.ok(Math.abs(g.logprob - want[j].logprob) < 1e-4, `${name} request ${j}: ${g.logprob} vs ${want[j].logprob}`));
  }
  const [a, b] = await Promise.all(['a', 'b'].map(async (n) => (await handles[['a', 'b'].indexOf(n)].model.score(REQS))[0].logprob));
  assert.notEqual(a, b, 'the adapters differ');
  for (const h of handles) h.dispose();
});

test('LoRA load errors: a missing route, an adapter the server cannot see (404s told apart), a failed load (500, not retried)', async () => {
  const loader = remoteLoader({ urls: [server.url] });
  await assert.rejects(loader({ step: 0, dir: path.join(adapters, 'broken'), base: baseDir }), (err: Error) => {
    assert.match(err.message, /could not load adapter .*broken \(HTTP 500: cannot load the LoRA adapter/);
    return true;
  });
  // One GET /v1/models and one POST: the 500 was not retried.
  assert.equal(loader.endpoints.sent.get(server.url), 2);
  const plain = await startServer({ modelDir: baseDir, profile: 'vllm' });
  try {
    await assert.rejects(remoteLoader({ urls: [plain.url] })({ step: 0, dir: path.join(adapters, 'a'), base: baseDir }),
      new RegExp(/has no LoRA loading route \(POST \/v1\/load_lora_adapter: HTTP 404 ""Not Found""\): /.source +
        /start vLLM with --enable-lora .*VLLM_ALLOW_RUNTIME_LORA_UPDATING=True/.source));
  } finally {
    await plain.close();
  }
  // A path the server does not see: vLLM's own 404 text, and what to do about it.
  const r = await fetch(`${server.url}/v1/load_lora_adapter`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lora_name: 'x', lora_path: path.join(adapters, 'nowhere') }) });
  assert.equal(r.status, 404);
  assert.match(((await r.json()) as { error: { message: string } }).error.message, /^Loading lora x failed: No adapter found for .*nowhere$/);
});

test('vLLM refuses LoRA on GPT-2: so does the vLLM profile, at start', async () => {
  const gpt2 = path.join(tinyRun([0], 3, 'gpt2-lora'), 'step-0');
  await assert.rejects(startServer({ modelDir: gpt2, profile: 'vllm', loraRoots: [adapters] }), /GPT2LMHeadModel does not support LoRA yet/);
});
