import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadModel, type BuiltinModel } from '../../../src/engine/index.ts';
import { RemoteEndpoints, RemoteModel, remoteLoader } from '../../../src/engine/remote/index.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../../src/evaluate/index.ts';
import { builtinLoader } from '../../../src/engine/index.ts';
import { identifyCheckpoint } from '../../../src/engine/model-identity.ts';
import { dumpStore, SUITE_ARG, tempDir, tinyRun } from '../../evaluate/helpers.ts';
import { startServe, type ServeProcess } from './serve-process.ts';
import { assertStoresAgree } from './store-compare.ts';
import { genstudy } from '../../support/genstudy-in-process.ts';

let runDir: string;
let builtin: BuiltinModel;
let serve: ServeProcess;

before(async () => {
  runDir = tinyRun([0, 100], 11, 'remote-run');
  builtin = await loadModel(path.join(runDir, 'step-100'));
  serve = await startServe(path.join(runDir, 'step-100'));
});

after(async () => {
  builtin?.dispose();
  await serve?.stop();
});

function remoteOn(urls: string[], opts: { perRequest?: number; topK?: number } = {}): RemoteModel {
  return new RemoteModel({
    firstTokenTopK: opts.topK,
    endpoints: new RemoteEndpoints(urls), model: 'step-100', tokenizer: builtin.tokenizer, id: builtin.id, maxLength: builtin.maxLength,
    promptsPerRequest: opts.perRequest ?? 3,
  });
}

test('score, first-token and generation through genstudy serve equal the built-in engine (1e-4 per token)', async () => {
  const remote = remoteOn([serve.url]);
  const reqs = [
    { context: 'the dog sees', continuation: ' the cat' },
    { context: 'a cat likes ', continuation: 'food' },
    { context: '', continuation: 'the dog' },
    { context: 'the teacher never holds the pear .', continuation: ' Yes' },
    { context: 'x', continuation: '' },
  ];
  const [want, got] = await Promise.all([builtin.score(reqs), remote.score(reqs)]);
  got.forEach((g, i) => {
    assert.equal(g.tokens, want[i].tokens, `request ${i}: tokens`);
    assert.ok(Math.abs(g.logprob - want[i].logprob) <= 1e-4 * Math.max(1, want[i].tokens), `request ${i}: ${g.logprob} vs ${want[i].logprob}`);
    assert.equal(g.isGreedy, want[i].isGreedy, `request ${i}: isGreedy`);
  });
  // A continuation the model itself generates is greedy, so isGreedy is checked both ways.
  const [gen] = await builtin.generate([{ prompt: 'the dog', maxNewTokens: 3 }]);
  const [greedy] = await remote.score([{ context: 'the dog', continuation: ` ${gen}` }]);
  assert.equal(greedy.isGreedy, (await builtin.score([{ context: 'the dog', continuation: ` ${gen}` }]))[0].isGreedy);

  const contexts = ['the dog sees the cat . Question : does it ? Answer :', 'a pear', 'the teacher'];
  const candidates = [' Yes', ' No', ' Yes'];
  const ftWant = await builtin.firstTokenLogprobs(contexts, candidates);
  // Top-k with id keys (all candidates inside), constrained continuation only, and a mix.
  for (const topK of [builtin.arch.vocabSize, 0, 2]) {
    const ftGot = await remoteOn([serve.url], { topK }).firstTokenLogprobs(contexts, candidates);
    ftGot.forEach((row, i) =>
      row.forEach((v, j) => assert.ok(Math.abs(v - ftWant[i][j]) <= 1e-4, `top-${topK}, context ${i} candidate ${j}: ${v} vs ${ftWant[i][j]}`)));
  }

  const gens = [{ prompt: 'the dog', maxNewTokens: 6 }, { prompt: 'a cat likes', maxNewTokens: 4, stop: ['pear'] },
    { prompt: 'the', maxNewTokens: 0 }];
  assert.deepEqual(await remote.generate(gens), await builtin.generate(gens));
});

test('an evaluation through engine/remote stores what the built-in engine stores (1e-4), with vLLM-style prompt_logprobs too', async () => {
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 4, synthSize: 10 })).slice(0, 2);
  const checkpoints = discoverCheckpoints(runDir).checkpoints.filter((c) => c.step === 100);
  const local = path.join(tempDir(), 'builtin.sqlite');
  await evaluateGrid({ storePath: local, run: 'r', checkpoints, testSets, variants: promptVariants(undefined, [0, 2]), loader: builtinLoader() });
  for (const form of ['echo', 'prompt_logprobs'] as const) {
    const viaServer = path.join(tempDir(), `remote-${form}.sqlite`);
    const loader = remoteLoader({ urls: [serve.url], promptsPerRequest: 4, logprobsForm: form });
    const summary = await evaluateGrid(
      { storePath: viaServer, run: 'r', checkpoints, testSets, variants: promptVariants(undefined, [0, 2]), loader, batchExamples: 8 });
    assert.ok(summary.computed > 0);
    assert.ok((loader.endpoints.sent.get(serve.url) ?? 0) > 0);
    assertStoresAgree(dumpStore(local), dumpStore(viaServer));
  }
});

test('identity: a full checkpoint on a server serving other weights is refused', async () => {
  const cp = discoverCheckpoints(runDir).checkpoints.find((c) => c.step === 0)!;
  assert.notEqual(identifyCheckpoint(cp).engineId, builtin.id);
  await assert.rejects(remoteLoader({ urls: [serve.url] })(cp), /serves "step-100" with weights sha256:.*but checkpoint .*step-0 has sha256:/);
});

test('genstudy evaluate --remote stores what the built-in engine stores, through the server it names', async () => {
  const dir = tempDir();
  const common = ['evaluate', '--model', path.join(runDir, 'step-100'), '--test-set', SUITE_ARG, '--synthetic-seed', '4',
    '--synthetic-size', '6', '--run', 'r'];
  const local = await genstudy([...common, '--store', path.join(dir, 'local.sqlite')]);
  assert.equal(local.code, 0, local.stderr);
  const viaServer = await genstudy([...common, '--store', path.join(dir, 'remote.sqlite'), '--remote', serve.url]);
  assert.equal(viaServer.code, 0, viaServer.stderr);
  assertStoresAgree(dumpStore(path.join(dir, 'local.sqlite')), dumpStore(path.join(dir, 'remote.sqlite')));
  // The requests do go to that server: a model name it does not serve is its error, not a local one.
  const wrong = await genstudy([...common, '--store', path.join(dir, 'wrong.sqlite'), '--remote', serve.url, '--remote-model', 'no-such-model']);
  assert.equal(wrong.code, 2, wrong.stderr);
  assert.match(wrong.stderr,
    new RegExp(`${serve.url.replace(/[.:/]/g, (c) => `\\${c}`)}.*no-such-model|no-such-model.*${serve.url.replace(/[.:/]/g, (c) => `\\${c}`)}`));
});
