// The server dies mid-evaluation and comes back on the same port: the remote engine retries, and
// the store ends as an uninterrupted run's, with nothing lost and nothing scored twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { remoteLoader } from '../../../src/engine/remote/index.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../../src/evaluate/index.ts';
import { builtinLoader, type ModelLoader } from '../../../src/engine/index.ts';
import type { LanguageModel } from '../../../src/types.ts';
import { dumpStore, SUITE_ARG, tempDir, tinyRun } from '../../evaluate/helpers.ts';
import { assertStoresAgree } from './store-compare.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

test('killing and restarting genstudy serve mid-evaluation loses nothing and scores nothing twice', async () => {
  const runDir = tinyRun([0, 100], 13, 'fault-run');
  const modelDir = path.join(runDir, 'step-100');
  const checkpoints = discoverCheckpoints(runDir).checkpoints.filter((c) => c.step === 100);
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 6, synthSize: 12 })).slice(0, 3);
  const variants = promptVariants(undefined, [0, 2]);
  let serve: ServeProcess = await startServe(modelDir);
  const port = serve.port;
  try {
    const plain = path.join(tempDir(), 'plain.sqlite');
    await evaluateGrid({ storePath: plain, run: 'r', checkpoints, testSets, variants, loader: builtinLoader(), batchExamples: 6 });

    // The real remote model, with the server killed (SIGKILL, requests in flight) on the 3rd engine call.
    const inner = remoteLoader({ urls: [serve.url], backoffMs: 100, maxBackoffMs: 1000, retries: 20, promptsPerRequest: 2 });
    let calls = 0;
    let restarted: Promise<ServeProcess> | undefined;
    const killing: ModelLoader = async (cp) => {
      const handle = await inner(cp);
      const m = handle.model;
      const hook = <T>(run: () => Promise<T>): Promise<T> => {
        if (++calls !== 3) return run();
        const answer = run();
        setTimeout(() => {
          void serve.stop('SIGKILL').then(() => {
            restarted = startServe(modelDir, ['--port', String(port)]);
          });
        }, 5);
        return answer;
      };
      const wrapped: LanguageModel = {
        id: m.id, tokenizer: m.tokenizer,
        score: (r) => hook(() => m.score(r)),
        firstTokenLogprobs: (c, k) => hook(() => m.firstTokenLogprobs(c, k)),
        generate: (r) => hook(() => m.generate(r)),
      };
      return { model: wrapped, dispose: handle.dispose };
    };
    const interrupted = path.join(tempDir(), 'interrupted.sqlite');
    const summary = await evaluateGrid({ storePath: interrupted, run: 'r', checkpoints, testSets, variants, loader: killing, batchExamples: 6 });
    assert.ok(calls > 3, `the evaluation made ${calls} engine calls; the kill must fall in the middle`);
    assert.ok(restarted, 'the server was killed');
    serve = await restarted!;
    const before = inner.endpoints.sent.get(serve.url) ?? 0;
    assert.ok(before > 0);
    assert.equal(summary.computed, summary.examples, 'every example answered once, by the model');
    assertStoresAgree(dumpStore(plain), dumpStore(interrupted));
  } finally {
    await serve.stop();
  }
});
