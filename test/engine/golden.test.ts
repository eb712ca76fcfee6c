// score() against the shared golden values (lm-evaluation-harness semantics, PyTorch reference).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { scoreTokens } from '../../src/engine/builtin/scoring.ts';
import { GOLDEN_FAMILIES, goldenDir, NO_SHARED, readJsonl } from './helpers.ts';

interface Expected { id: string; logprob: number; tokens: number; is_greedy: boolean; token_ids: number[]; context_ids: number[] }

for (const family of GOLDEN_FAMILIES) {
  test(`${family}: score equals the golden log-likelihoods`, async (t) => {
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    // Small batches so that several length-sorted, padded batches are exercised.
    const model = await loadModel(dir, { maxBatchTokens: 200 });
    try {
      const pairs = readJsonl<{ context: string; continuation: string }>(path.join(dir, 'pairs.jsonl'));
      const expected = readJsonl<Expected>(path.join(dir, 'expected.jsonl'));
      const got = await scoreTokens(model, pairs);
      const plain = await model.score(pairs);
      assert.equal(got.length, expected.length);
      expected.forEach((e, i) => {
        assert.deepEqual(got[i].tokenIds, e.token_ids, `${e.id}: continuation token ids`);
        assert.equal(got[i].tokens, e.tokens, `${e.id}: token count`);
        assert.equal(got[i].isGreedy, e.is_greedy, `${e.id}: is_greedy`);
        assert.ok(Math.abs(got[i].logprob - e.logprob) < 1e-4, `${e.id}: logprob ${got[i].logprob} vs ${e.logprob}`);
        assert.deepEqual(plain[i], { logprob: got[i].logprob, tokens: got[i].tokens, isGreedy: got[i].isGreedy });
      });
      // The context side of the split, including the tokenizer's BOS where its post-processor adds one.
      expected.forEach((e, i) => {
        let ctx = pairs[i].context;
        ctx = ctx.replace(/\s+$/u, '');
        assert.deepEqual(model.tokenizer.encode(ctx), e.context_ids, `${e.id}: context ids`);
      });
    } finally {
      model.dispose();
    }
  });
}
