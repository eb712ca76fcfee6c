// OPT, OLMo2 and Qwen2 against reference logits from test/engine/fixtures/make_fixtures.py (a PyTorch
// script following transformers' modeling code; see its header).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { argmaxDecode, fixturesDir } from './helpers.ts';

for (const name of ['opt', 'opt-postnorm', 'olmo2', 'qwen2', 'llama-variants']) {
  test(`${name}: logits equal the PyTorch reference to 1e-4 (batched, padded)`, async () => {
    const dir = path.join(fixturesDir, name);
    const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { sequences: number[][]; logits: number[][][] };
    const model = await loadModel(dir);
    try {
      const got = await model.logits(expected.sequences);
      const v = model.arch.vocabSize;
      let worst = 0;
      expected.logits.forEach((seq, i) => seq.forEach((row, t) => row.forEach((x, j) => {
        worst = Math.max(worst, Math.abs(got[i][t * v + j] - x));
      })));
      assert.ok(worst < 1e-4, `max |difference| ${worst}`);
    } finally {
      model.dispose();
    }
  });
}

test('KV-cache generation equals uncached argmax decoding for OPT, OLMo2, Qwen2 and the Llama variants (left-padded batch)', async () => {
  const prompts = ['The cat sat on the', 'Hi', 'Once upon a time, there was'];
  for (const name of ['opt', 'opt-postnorm', 'olmo2', 'qwen2', 'llama-variants']) {
    const model = await loadModel(path.join(fixturesDir, name));
    try {
      const got = await model.generate(prompts.map((prompt) => ({ prompt, maxNewTokens: 6 })));
      for (let i = 0; i < prompts.length; i++) {
        const want = model.tokenizer.decode(await argmaxDecode(model, prompts[i], 6), { skipSpecialTokens: true });
        assert.equal(got[i], want, `${name}, prompt ${i}`);
      }
    } finally {
      model.dispose();
    }
  }
});
