// The shared golden GPT-2 (PyTorch reference log-probs) scored through genstudy serve and the remote
// engine: per-token log-probs within 1e-4 of PyTorch's. Skips when ../shared is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RemoteEndpoints, RemoteModel, maxLengthOf } from '../../src/engine/remote/index.ts';
import { loadTokenizer } from '../../src/engine/index.ts';
import { startServer } from '../../src/serve/index.ts';
import { goldenDir, NO_SHARED, readJsonl } from '../engine/helpers.ts';

interface Pair { id: string; context: string; continuation: string }
interface Expected { id: string; logprob: number; tokens: number; is_greedy: boolean; token_logprobs: number[] }

test('golden GPT-2 through genstudy serve: log-probs equal PyTorch\'s within 1e-4 per token', async (t) => {
  const dir = goldenDir('gpt2');
  if (!dir) { t.skip(NO_SHARED); return; }
  const pairs = readJsonl<Pair>(path.join(dir, 'pairs.jsonl'));
  const expected = new Map(readJsonl<Expected>(path.join(dir, 'expected.jsonl')).map((e) => [e.id, e]));
  assert.ok(fs.existsSync(path.join(dir, 'tokenizer.json')));
  const server = await startServer({ modelDir: dir, modelName: 'gpt2' });
  try {
    const remote = new RemoteModel({
      endpoints: new RemoteEndpoints([server.url]), model: 'gpt2', tokenizer: loadTokenizer(dir), id: 'golden', maxLength: maxLengthOf(dir),
    });
    const got = await remote.score(pairs);
    got.forEach((g, i) => {
      const e = expected.get(pairs[i].id)!;
      assert.equal(g.tokens, e.tokens, pairs[i].id);
      assert.ok(Math.abs(g.logprob - e.logprob) <= 1e-4 * e.tokens, `${pairs[i].id}: ${g.logprob} vs ${e.logprob}`);
      assert.equal(g.isGreedy, e.is_greedy, pairs[i].id);
    });
  } finally {
    await server.close();
  }
});
