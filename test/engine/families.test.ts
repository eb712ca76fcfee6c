// OPT, OLMo2, Qwen2 and Llama variants against transformers' own logits (fixtures/transformers_check.py)
// and the PyTorch script that made the fixtures (fixtures/make_fixtures.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadModel, loadTokenizer } from '../../src/engine/index.ts';
import { argmaxDecode, fixturesDir } from './helpers.ts';

interface Expected { source: string; sequences: number[][]; logits: number[][][] }

async function worstDifference(dir: string, expected: Expected): Promise<number> {
  const model = await loadModel(dir);
  try {
    const got = await model.logits(expected.sequences);
    const v = model.arch.vocabSize;
    let worst = 0;
    expected.logits.forEach((seq, i) => seq.forEach((row, t) => row.forEach((x, j) => {
      worst = Math.max(worst, Math.abs(got[i][t * v + j] - x));
    })));
    return worst;
  } finally {
    model.dispose();
  }
}

for (const name of ['opt', 'opt-postnorm', 'olmo2', 'qwen2', 'llama-variants']) {
  // transformers' own logits (transformers_check.py) and the PyTorch script's (make_fixtures.py).
  for (const file of ['transformers_expected.json', 'expected.json']) {
    test(`${name}: logits equal ${file} to 1e-4 (batched, padded)`, async (t) => {
      const dir = path.join(fixturesDir, name);
      if (!fs.existsSync(path.join(dir, file))) return t.skip(`${file} not made (needs transformers; see transformers_check.py)`);
      const expected = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Expected;
      const worst = await worstDifference(dir, expected);
      assert.ok(worst < 1e-4, `max |difference| ${worst} against ${expected.source}`);
    });
  }
}

test('the fixtures\' tokenizer gives transformers\' AutoTokenizer ids on 300 strings', () => {
  const file = path.join(fixturesDir, 'opt', 'transformers_expected.json');
  const expected = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokenizer: { text: string; ids: number[]; ids_plain: number[] }[] };
  const tok = loadTokenizer(path.join(fixturesDir, 'opt'));
  assert.equal(expected.tokenizer.length, 300);
  for (const e of expected.tokenizer) {
    assert.deepEqual(tok.encode(e.text), e.ids, JSON.stringify(e.text));
    assert.deepEqual(tok.encode(e.text, { addSpecialTokens: false }), e.ids_plain, JSON.stringify(e.text));
  }
});

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
