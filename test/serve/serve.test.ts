// genstudy serve's API, in process (startServer on 127.0.0.1, port 0), against the built-in engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadModel, scoreTokens, encodePair, type BuiltinModel } from '../../src/engine/index.ts';
import { LoraAdapters } from '../../src/engine/builtin/lora.ts';
import { remoteLoader, RemoteModel } from '../../src/engine/remote/index.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { builtinLoader } from '../../src/engine/index.ts';
import { startServer, type RunningServer } from '../../src/serve/index.ts';
import { EngineQueue } from '../../src/serve/engine-queue.ts';
import { seededRandom } from '../../src/seeded-random.ts';
import { dumpStore, SUITE_ARG, tempDir, tinyRun } from '../evaluate/helpers.ts';
import { assertStoresAgree } from '../engine/remote/store-compare.ts';

let modelDir: string;
let model: BuiltinModel;
let server: RunningServer;
/** The folder run-time LoRA adapters may be loaded from (genstudy serve --lora-root). */
let loraRoot: string;

before(async () => {
  modelDir = path.join(tinyRun([0], 17, 'serve-run'), 'step-0');
  model = await loadModel(modelDir);
  loraRoot = tempDir();
  server = await startServer({ modelDir, modelName: 'tiny', loraRoots: [loraRoot] });
});
after(async () => { model?.dispose(); await server?.close(); });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the server's JSON answers are read field by field, as a client reads them
type Json = any;

async function call(route: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${server.url}${route}`,
    body === undefined ? {} : { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown = text;
  try { json = JSON.parse(text); } catch { /* plain text */ }
  return { status: res.status, json };
}

test('echo + logprobs equal the engine\'s token scores; text and token-id prompts agree; top-k is sorted', async () => {
  const pair = encodePair(model.tokenizer, { context: 'the dog sees', continuation: ' the cat' }, model.maxLength);
  const ids = [...pair.input, pair.targets[pair.targets.length - 1]];
  const [want] = await scoreTokens(model, [{ context: 'the dog sees', continuation: ' the cat' }]);
  const { status, json } = await call('/v1/completions', { model: 'tiny', prompt: [ids], echo: true, logprobs: 3, max_tokens: 0, temperature: 0 });
  assert.equal(status, 200);
  const lp = json.choices[0].logprobs;
  assert.equal(lp.token_logprobs.length, ids.length);
  assert.equal(lp.token_logprobs[0], null);
  const got = lp.token_logprobs.slice(-pair.targets.length) as number[];
  got.forEach((v, i) => assert.ok(Math.abs(v - want.tokenLogprobs[i]) <= 1e-5, `${v} vs ${want.tokenLogprobs[i]}`));
  for (const top of lp.top_logprobs.slice(1)) {
    const values = Object.values(top) as number[];
    assert.ok(values.length >= 3 && values.length <= 4);
    assert.ok(values.every((v) => v <= 0));
  }
  const asText = await call('/v1/completions', { prompt: 'the dog sees the cat', echo: true, logprobs: 1, max_tokens: 0 });
  const asIds = await call('/v1/completions', { prompt: model.tokenizer.encode('the dog sees the cat'), echo: true, logprobs: 1, max_tokens: 0 });
  assert.deepEqual(asText.json.choices, asIds.json.choices);
  assert.equal(asText.json.model, 'tiny');
  assert.deepEqual(asText.json.usage, { prompt_tokens: model.tokenizer.encode('the dog sees the cat').length, completion_tokens: 0,
    total_tokens: model.tokenizer.encode('the dog sees the cat').length });
});

test('generation equals the engine\'s generate, with and without log-probs, stop sequences cut the text', async () => {
  const reqs = [{ prompt: 'the dog', maxNewTokens: 5 }, { prompt: 'a cat likes', maxNewTokens: 3 }];
  const want = await model.generate(reqs);
  for (const logprobs of [undefined, 1]) {
    const { json } = await call('/v1/completions',
      { prompt: reqs.map((r) => r.prompt), max_tokens: 5, temperature: 0, ...(logprobs ? { logprobs } : {}) });
    assert.equal(json.choices[0].text, want[0]);
    if (logprobs) assert.equal(json.choices[0].logprobs.tokens.length, model.tokenizer.encode(want[0], { addSpecialTokens: false }).length);
  }
  const word = want[0].split(' ')[1];
  if (word) {
    const [cut] = await model.generate([{ prompt: 'the dog', maxNewTokens: 5, stop: [word] }]);
    const { json } = await call('/v1/completions', { prompt: 'the dog', max_tokens: 5, stop: word });
    assert.equal(json.choices[0].text, cut);
  }
});

test('jobs waiting while the engine is busy go to it together, and each gets its own answers', async () => {
  const rounds: number[][] = [];
  const queue = new EngineQueue<number, number>(async (_m, items) => { rounds.push(items); return items.map((x) => x * 10); });
  const first = queue.submit(model, [1]);
  const rest = [queue.submit(model, [2, 3]), queue.submit(model, [4])];
  assert.deepEqual(await Promise.all([first, ...rest]), [[10], [20, 30], [40]]);
  assert.deepEqual(rounds, [[1, 2, 3, 4]]);
  const failing = new EngineQueue<number, number>(async () => { throw new Error('boom'); });
  await assert.rejects(failing.submit(model, [1]), /boom/);
});

test('concurrent requests get the answers they would get alone', async () => {
  const prompts = ['the dog', 'a cat', 'the teacher holds', 'a pear', 'the cat never', 'the dog likes the', 'a', 'the pear'];
  const alone: Json[] = [];
  for (const p of prompts) alone.push((await call('/v1/completions', { prompt: p, echo: true, logprobs: 2, max_tokens: 1 })).json.choices);
  const together = await Promise.all(prompts.map((p) => call('/v1/completions', { prompt: p, echo: true, logprobs: 2, max_tokens: 1 })));
  assert.ok(server.stats().engineCalls > 0);
  together.forEach((r, i) => {
    const a = alone[i][0].logprobs.token_logprobs as (number | null)[];
    const b = r.json.choices[0].logprobs.token_logprobs as (number | null)[];
    assert.equal(b.length, a.length);
    a.forEach((v, j) => assert.ok(v === null ? b[j] === null : Math.abs(v - (b[j] as number)) <= 1e-5));
  });
});

test('clear errors: sampling, unknown model, bad JSON, bad fields, long prompts, unknown tokens, unknown routes', async () => {
  const cases: [string, unknown, number, RegExp][] = [
    ['/v1/completions', { prompt: 'x', temperature: 0.7 }, 400, /decodes greedily; send temperature 0/],
    ['/v1/completions', { model: 'other', prompt: 'x' }, 404, /The model `other` does not exist \(served: tiny\)/],
    ['/v1/completions', '{"prompt": ', 400, /not valid JSON/],
    ['/v1/completions', { prompt: 'x', logprobs: 'many' }, 400, /logprobs: /],
    ['/v1/completions', { prompt: 3 }, 400, /prompt: /],
    ['/v1/completions', { prompt: Array.from({ length: model.maxLength + 2 }, () => 3), echo: true, logprobs: 0 }, 400,
      /has 258 tokens; this model reads at most 256/],
    ['/v1/completions', { prompt: [3, 99999], echo: true, logprobs: 0 }, 400, /token id 99999 is outside the vocabulary/],
    ['/v1/chat/completions', { messages: [] }, 404, /no route POST \/v1\/chat\/completions/],
  ];
  for (const [route, body, status, message] of cases) {
    const r = await call(route, body);
    assert.equal(r.status, status, JSON.stringify(r.json));
    assert.match(r.json.error.message, message);
  }
  assert.deepEqual((await call('/health')).json, { status: 'ok' });
  const models = (await call('/v1/models')).json;
  assert.equal(models.data[0].id, 'tiny');
  assert.equal(models.data[0].genstudy_weights, model.id);
});

test('LoRA checkpoints: one server loads each adapter by name, and the evaluation equals the built-in merge', async () => {
  const runDir = path.join(loraRoot, 'lora-run');
  for (const [step, seed] of [[10, 1], [20, 2]]) {
    const adapters = LoraAdapters.create(model, { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn', 'c_fc'] }, seed);
    const rng = seededRandom(seed, 'serve-lora');
    for (const p of adapters.pairs) p.b.assign(tf.tensor(Float32Array.from({ length: p.b.size }, () => rng.next() - 0.5), p.b.shape));
    await adapters.save(path.join(runDir, `checkpoint-${step}`), modelDir);
    adapters.dispose();
  }
  const { checkpoints } = discoverCheckpoints(runDir);
  assert.equal(checkpoints.length, 2);
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 8, synthSize: 8 })).slice(0, 2);
  const local = path.join(tempDir(), 'local.sqlite');
  await evaluateGrid({ storePath: local, run: 'lora', checkpoints, testSets, variants: promptVariants(), loader: builtinLoader() });
  const viaServer = path.join(tempDir(), 'served.sqlite');
  await evaluateGrid(
    { storePath: viaServer, run: 'lora', checkpoints, testSets, variants: promptVariants(), loader: remoteLoader({ urls: [server.url] }) });
  assertStoresAgree(dumpStore(local), dumpStore(viaServer));
  // A server that lost the adapter (restarted) gets it loaded again and the request retried.
  const handle = await remoteLoader({ urls: [server.url] })(checkpoints[0]);
  const name = (handle.model as RemoteModel).model;
  assert.equal((await call('/v1/unload_lora_adapter', { lora_name: name })).status, 200);
  assert.ok(!(await call('/v1/models')).json.data.some((m: { id: string }) => m.id === name));
  const [scored] = await handle.model.score([{ context: 'the dog', continuation: ' sees' }]);
  assert.ok(scored.logprob < 0);
  assert.ok((await call('/v1/models')).json.data.some((m: { id: string }) => m.id === name));
  handle.dispose();
  const load = await call('/v1/load_lora_adapter', { lora_name: 'a', lora_path: path.join(runDir, 'nope') });
  assert.equal(load.status, 400);
  assert.match(load.json.error.message, /no adapter folder at .*nope/);
});
