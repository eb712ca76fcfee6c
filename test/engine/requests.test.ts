// firstTokenLogprobs and generate: checked against plain full forward passes (model.logits), batched
// against one by one, and for leaked tensors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadModel } from '../../src/engine/index.ts';
import { argmaxDecode, copyToTemp, fixturesDir, GOLDEN_FAMILIES, goldenDir, NO_SHARED } from './helpers.ts';

const prompts = ['The cat sat on the', 'Once upon a time, there was a', 'Hi', 'Le café est fermé. Müller und Söhne', ' leading space', 'x'];

function logSoftmax(row: Float32Array): number[] {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  return Array.from(row, (x) => x - lse);
}

for (const family of GOLDEN_FAMILIES) {
  test(`${family}: firstTokenLogprobs is the last position's log-softmax at each candidate's first token`, async (t) => {
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    const m = await loadModel(dir, { maxBatchTokens: 40 });
    try {
      const candidates = [' Yes', ' No', 'Yes', ' maybe so'];
      const got = await m.firstTokenLogprobs(prompts, candidates);
      assert.equal(got.length, prompts.length);
      const firstIds = candidates.map((c) => m.tokenizer.encode(c, { addSpecialTokens: false })[0]);
      assert.notEqual(firstIds[0], firstIds[2], '" Yes" and "Yes" are different tokens');
      for (let i = 0; i < prompts.length; i++) {
        const ids = m.tokenizer.encode(prompts[i]);
        const [logits] = await m.logits([ids]);
        const lp = logSoftmax(logits.subarray(logits.length - m.arch.vocabSize));
        firstIds.forEach((id, j) => assert.ok(Math.abs(got[i][j] - lp[id]) < 1e-5, `prompt ${i} candidate ${j}: ${got[i][j]} vs ${lp[id]}`));
      }
    } finally {
      m.dispose();
    }
  });

  test(`${family}: KV-cache generation equals argmax decoding without cache; batched equals one by one`, async (t) => {
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    const m = await loadModel(dir);
    try {
      const n = 8;
      const batched = await m.generate(prompts.map((prompt) => ({ prompt, maxNewTokens: n })));
      for (let i = 0; i < prompts.length; i++) {
        const expected = m.tokenizer.decode(await argmaxDecode(m, prompts[i], n), { skipSpecialTokens: true });
        assert.equal(batched[i], expected, `prompt ${i}`);
        const [alone] = await m.generate([{ prompt: prompts[i], maxNewTokens: n }]);
        assert.equal(alone, expected, `prompt ${i} alone`);
      }
    } finally {
      m.dispose();
    }
  });

  test(`${family}: stop sequences cut the text, maxNewTokens bounds it`, async (t) => {
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    const m = await loadModel(dir);
    try {
      const [full] = await m.generate([{ prompt: prompts[0], maxNewTokens: 12 }]);
      assert.ok(full.length > 4, `generated ${JSON.stringify(full)}`);
      const stop = full.slice(3, 5);
      const [cut] = await m.generate([{ prompt: prompts[0], maxNewTokens: 12, stop: ['no such stop', stop] }]);
      assert.equal(cut, full.slice(0, full.indexOf(stop)));
      const [one] = await m.generate([{ prompt: prompts[0], maxNewTokens: 1 }]);
      assert.equal(one, m.tokenizer.decode(await argmaxDecode(m, prompts[0], 1), { skipSpecialTokens: true }));
      const [none] = await m.generate([{ prompt: prompts[0], maxNewTokens: 0 }]);
      assert.equal(none, '');
    } finally {
      m.dispose();
    }
  });

  test(`${family}: padding, batching and lm-head chunks change no score`, async (t) => {
    const dir = goldenDir(family);
    if (!dir) return t.skip(NO_SHARED);
    const m = await loadModel(dir, { maxBatchTokens: 100000 });
    try {
      const reqs = prompts.map((p, i) => ({ context: p, continuation: prompts[(i + 1) % prompts.length] }));
      const together = await m.score(reqs);
      m.maxBatchTokens = 1;
      const alone = await m.score(reqs);
      // The lm head in chunks of 3 rows gives the same numbers.
      m.maxBatchTokens = 100000;
      m.logitsPerChunk = 3 * m.arch.vocabSize;
      const chunked = await m.score(reqs);
      chunked.forEach((r, i) =>
        assert.ok(Math.abs(r.logprob - together[i].logprob) < 1e-5 && r.isGreedy === together[i].isGreedy, `chunked pair ${i}`));
      together.forEach((r, i) => {
        assert.ok(Math.abs(r.logprob - alone[i].logprob) < 1e-4, `pair ${i}: ${r.logprob} vs ${alone[i].logprob}`);
        assert.equal(r.isGreedy, alone[i].isGreedy);
        assert.equal(r.tokens, alone[i].tokens);
      });
    } finally {
      m.dispose();
    }
  });
}

test('no tensors leak over 100 calls', async () => {
  // Qwen2 fixture: GQA, biases, tied head (a cached derived tensor), rotary; always present.
  const dir = path.join(fixturesDir, 'qwen2');
  const m = await loadModel(dir, { maxBatchTokens: 64 });
  try {
    // One warm-up round creates the cached derived tensors (if any) before counting.
    const round = async (i: number) => {
      if (i % 3 === 0) await m.score([{ context: prompts[i % 6], continuation: ' and more' }, { context: '', continuation: 'x' }]);
      else if (i % 3 === 1) await m.firstTokenLogprobs([prompts[i % 6], 'Hi'], [' Yes', ' No']);
      else await m.generate([{ prompt: prompts[i % 6], maxNewTokens: 3, stop: ['.'] }, { prompt: 'Hi', maxNewTokens: 2 }]);
    };
    for (let i = 0; i < 3; i++) await round(i);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 100; i++) await round(i);
    assert.equal(tf.memory().numTensors, before);
  } finally {
    m.dispose();
  }
});

test('inputs longer than the model are cut from the left, as lm-evaluation-harness does', async (t) => {
  const dir = goldenDir('gpt2');
  if (!dir) return t.skip(NO_SHARED);
  const m = await loadModel(dir);
  try {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    assert.ok(m.tokenizer.encode(long).length > m.maxLength);
    const [r] = await m.score([{ context: long, continuation: ' The end.' }]);
    assert.ok(Number.isFinite(r.logprob) && r.tokens > 0);
    // Scoring the kept tail alone gives the same number: only the last maxLength + 1 tokens count.
    const ids = [...m.tokenizer.encode(long), ...m.tokenizer.encode(' The end.')];
    const kept = ids.slice(-(m.maxLength + 1));
    const [logits] = await m.logits([kept.slice(0, -1)]);
    const v = m.arch.vocabSize;
    let lp = 0;
    for (let j = kept.length - r.tokens; j < kept.length; j++) {
      const row = logits.subarray((j - 1) * v, j * v);
      const max = Math.max(...row);
      const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
      lp += row[kept[j]] - lse;
    }
    assert.ok(Math.abs(lp - r.logprob) < 1e-3, `${lp} vs ${r.logprob}`);
    const [text] = await m.generate([{ prompt: long, maxNewTokens: 500 }]);
    assert.equal(typeof text, 'string');
    const [fb] = await m.firstTokenLogprobs([long], [' Yes']);
    assert.ok(Number.isFinite(fb[0]));
  } finally {
    m.dispose();
  }
});

test('empty and whitespace-only contexts are scored from the prefix token', async (t) => {
  const dir = goldenDir('gpt2');
  if (!dir) return t.skip(NO_SHARED);
  const m = await loadModel(dir);
  try {
    const [empty, spaces, alone] = await m.score([
      { context: '', continuation: ' hello there' },
      { context: '  ', continuation: 'hello there' },
      { context: '<|endoftext|>', continuation: ' hello there' },
    ]);
    // GPT-2's prefix token is <|endoftext|> (its BOS and EOS): the first and third are the same request.
    assert.ok(Math.abs(empty.logprob - alone.logprob) < 1e-5, `${empty.logprob} vs ${alone.logprob}`);
    assert.equal(empty.tokens, alone.tokens);
    assert.equal(spaces.tokens, m.tokenizer.encode('  hello there').length);
    assert.ok(Number.isFinite(spaces.logprob));
  } finally {
    m.dispose();
  }
});

test('generation also stops at eos_token_id values of generation_config.json', async (t) => {
  const src = goldenDir('gpt2');
  if (!src) return t.skip(NO_SHARED);
  const m = await loadModel(src);
  const first = (await argmaxDecode(m, prompts[0], 3));
  m.dispose();
  assert.ok(first.length === 3);
  const dir = copyToTemp(src);
  fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [296, first[1]] }));
  const g = await loadModel(dir);
  try {
    const [text] = await g.generate([{ prompt: prompts[0], maxNewTokens: 10 }]);
    assert.equal(text, g.tokenizer.decode([first[0]]));
  } finally {
    g.dispose();
  }
});
