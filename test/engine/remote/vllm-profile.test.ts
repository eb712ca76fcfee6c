// The remote engine against genstudy serve's vLLM profile (src/serve/vllm-profile.ts: /v1/models
// without weights, vLLM's context limit and 400 texts, generation_config.json defaults, LoRA
// errors), a real HTTP server on 127.0.0.1. Each test here failed before its fix:
// - a server on other weights that does not report them was trusted (answers stored under the wrong checkpoint);
// - requests left sampling fields to the server's generation_config defaults;
// - scoring prompts at the model's length went over vLLM's max_model_len - max_tokens (400).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { loadModel, type BuiltinModel } from '../../../src/engine/index.ts';
import { RemoteEndpoints, RemoteModel, remoteLoader, GREEDY } from '../../../src/engine/remote/index.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../../src/evaluate/index.ts';
import { builtinLoader } from '../../../src/engine/index.ts';
import { startServer, type RunningServer } from '../../../src/serve/index.ts';
import { dumpStore, SUITE_ARG, tempDir, tinyRun } from '../../evaluate/helpers.ts';
import { assertStoresAgree } from './store-compare.ts';

let runDir: string;
let builtin: BuiltinModel;
let vllm: RunningServer;

before(async () => {
  runDir = tinyRun([0, 100], 31, 'vllm-run');
  builtin = await loadModel(path.join(runDir, 'step-100'));
  vllm = await startServer({ modelDir: path.join(runDir, 'step-100'), profile: 'vllm' });
});

after(async () => {
  builtin?.dispose();
  await vllm?.close();
});

const checkpoint = (step: number) => discoverCheckpoints(runDir).checkpoints.find((c) => c.step === step)!;

test('vLLM profile: /v1/models lists root and max_model_len, and nothing about weights', async () => {
  const models = await (await fetch(`${vllm.url}/v1/models`)).json() as { data: Record<string, unknown>[] };
  assert.equal(models.data.length, 1);
  assert.equal(models.data[0].root, path.join(runDir, 'step-100'));
  assert.equal(models.data[0].max_model_len, 256);
  assert.equal(models.data[0].genstudy_weights, undefined);
});

test('identity: checkpoint B through a vLLM-like server serving A is refused before anything is stored; A is evaluated as the ' +
  'built-in engine', async () => {
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 4, synthSize: 6 })).slice(0, 1);
  const store = path.join(tempDir(), 'wrong.sqlite');
  await assert.rejects(
    evaluateGrid({ storePath: store, run: 'r', checkpoints: [checkpoint(0)], testSets, variants: promptVariants(undefined, [0]),
      loader: remoteLoader({ urls: [vllm.url] }) }),
    /was started on .*step-100, not .*step-0, and it does not report which weights it holds.*--remote-identity probe/s,
  );
  assert.ok(!fs.existsSync(store) || (dumpStore(store).scores ?? []).length === 0, 'nothing stored for step 0');
  const local = path.join(tempDir(), 'local.sqlite');
  const remote = path.join(tempDir(), 'remote.sqlite');
  const grid = { run: 'r', checkpoints: [checkpoint(100)], testSets, variants: promptVariants(undefined, [0]) };
  await evaluateGrid({ ...grid, storePath: local, loader: builtinLoader() });
  await evaluateGrid({ ...grid, storePath: remote, loader: remoteLoader({ urls: [vllm.url] }) });
  assertStoresAgree(dumpStore(local), dumpStore(remote));
});

test('identity by probe: a copy of A elsewhere passes, B is refused with the difference measured', async () => {
  const copy = path.join(tempDir(), 'elsewhere');
  fs.cpSync(path.join(runDir, 'step-100'), copy, { recursive: true });
  const probe = remoteLoader({ urls: [vllm.url], identity: 'probe' });
  const handle = await probe({ step: 100, dir: copy });
  handle.dispose();
  await assert.rejects(probe(checkpoint(0)), /its log-probs differ from .*step-0's: a mean difference of [0-9.]+ per token/);
});

test('sampling: every greedy request names its sampling fields, so generation_config.json defaults cannot change the answer', async () => {
  const dir = path.join(tempDir(), 'with-generation-config');
  fs.cpSync(path.join(runDir, 'step-100'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ repetition_penalty: 1.3, top_k: 50, top_p: 0.9, temperature: 0.7 }));
  const server = await startServer({ modelDir: dir, profile: 'vllm' });
  try {
    // What a request that leaves the fields out gets from the vLLM profile: vLLM would apply them.
    const bare = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: [5, 6, 7], max_tokens: 3, temperature: 0 }) });
    assert.equal(bare.status, 400);
    assert.match(((await bare.json()) as { error: { message: string } }).error.message, /repetition_penalty 1\.3 .*generation_config\.json/);
    const model = await loadModel(dir);
    const remote = new RemoteModel({ endpoints: new RemoteEndpoints([server.url]), model: server.modelName, tokenizer: model.tokenizer, id: model.id,
      maxLength: model.maxLength });
    const gens = [{ prompt: 'the dog', maxNewTokens: 5 }, { prompt: 'a cat likes', maxNewTokens: 3, stop: ['pear'] }];
    assert.deepEqual(await remote.generate(gens), await model.generate(gens));
    const reqs = [{ context: 'the dog sees', continuation: ' the cat' }];
    const [want] = await model.score(reqs);
    const [got] = await remote.score(reqs);
    assert.ok(Math.abs(want.logprob - got.logprob) < 1e-4);
    model.dispose();
  } finally {
    await server.close();
  }
  assert.deepEqual(Object.keys(GREEDY).sort(),
    ['frequency_penalty', 'min_p', 'presence_penalty', 'repetition_penalty', 'temperature', 'top_k', 'top_p']);
});

test('max_model_len: prompts at and over the model length fit within max_model_len - max_tokens, cut from the left', async () => {
  const remote = new RemoteModel({ endpoints: new RemoteEndpoints([vllm.url], { retries: 0 }), model: vllm.modelName, tokenizer: builtin.tokenizer,
    id: builtin.id, maxLength: builtin.maxLength, contextLimit: 256 });
  const long = Array.from({ length: 400 }, (_, i) => (i % 2 ? 'dog' : 'cat')).join(' ');
  const scored = await remote.score([{ context: long, continuation: ' the cat' }]);
  assert.equal(scored[0].tokens, builtin.tokenizer.encode(' the cat', { addSpecialTokens: false }).length);
  assert.ok(Number.isFinite(scored[0].logprob) && scored[0].logprob < 0);
  const ft = await remote.firstTokenLogprobs([long], [' Yes', ' No']);
  assert.ok(ft[0].every((v) => Number.isFinite(v) && v < 0));
  const [gen] = await remote.generate([{ prompt: long, maxNewTokens: 300 }]);
  assert.equal(typeof gen, 'string');
  // The same item through the built-in engine differs only by the context the server's limit cuts.
  assert.throws(() => new RemoteModel({ endpoints: new RemoteEndpoints([vllm.url]), model: 'x', tokenizer: builtin.tokenizer, id: 'x', maxLength: 256,
    scoringMaxTokens: 0, logprobsForm: 'prompt_logprobs' }), /max_tokens 0 without echo/);
});

test('a server still loading (refusing connections, as vLLM does) is waited for, then answers', async () => {
  // A free port, closed again: nothing listens there until the server has "loaded".
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
  });
  const lines: string[] = [];
  const remote = new RemoteModel({
    endpoints: new RemoteEndpoints([`http://127.0.0.1:${port}`], { retries: 0, startupMs: 120_000, log: (l) => lines.push(l) }),
    model: 'late', tokenizer: builtin.tokenizer, id: builtin.id, maxLength: builtin.maxLength,
  });
  const starting = startServer({ modelDir: path.join(runDir, 'step-100'), profile: 'vllm', port, modelName: 'late', startupDelayMs: 1500 });
  try {
    const reqs = [{ context: 'the dog sees', continuation: ' the cat' }];
    const [got] = await remote.score(reqs);
    const [want] = await builtin.score(reqs);
    assert.ok(Math.abs(got.logprob - want.logprob) < 1e-4);
    assert.match(lines.join('\n'), /refuses connections; waiting up to 120 s[\s\S]*is up after/);
  } finally {
    await (await starting).close();
  }
});
