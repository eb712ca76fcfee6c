import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { readSafetensors } from '../../src/engine/hf/safetensors.ts';
import { copyToTemp, fixturesDir, goldenDir } from './helpers.ts';

const probe = [[1, 5, 17, 42, 100, 7, 250], [3, 9, 11]];

// The shared goldens when present (GPT-2's tied head, Llama), and fixtures that always are (OPT's
// project_in/out and tied head, OLMo2's q/k norms).
const folders: [string, string | undefined][] = [
  ['gpt2', goldenDir('gpt2')], ['llama', goldenDir('llama')],
  ['opt', path.join(fixturesDir, 'opt')], ['olmo2', path.join(fixturesDir, 'olmo2')],
];

for (const [family, src] of folders) {
  test(`${family}: save then load gives identical logits, tensors and tokenizer`, async (t) => {
    if (!src) return t.skip('needs ../shared/golden/engine, which is absent');
    const a = await loadModel(src);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-save-'));
    try {
      await a.save(out);
      assert.deepEqual(fs.readdirSync(out).filter((f) => f.startsWith('.')), [], 'no temporary files left');
      const b = await loadModel(out);
      try {
        const [la, lb] = [await a.logits(probe), await b.logits(probe)];
        la.forEach((row, i) => assert.deepEqual(lb[i], row));
        // Same tensor names, shapes and values as the source file (file layout, no tied lm_head added).
        const before = readSafetensors(path.join(src, 'model.safetensors')).tensors;
        const after = readSafetensors(path.join(out, 'model.safetensors')).tensors;
        assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
        for (const [name, tns] of before) {
          assert.deepEqual(after.get(name)!.shape, tns.shape, name);
          assert.deepEqual(after.get(name)!.data, tns.data, name);
        }
        assert.equal(b.id, a.id, 'same float32 weights, same bytes, same identity');
        assert.equal(JSON.parse(fs.readFileSync(path.join(out, 'config.json'), 'utf8')).model_type, a.arch.modelType);
        assert.deepEqual(b.tokenizer.encode('Le café, 🍕!'), a.tokenizer.encode('Le café, 🍕!'));
      } finally {
        b.dispose();
      }
    } finally {
      a.dispose();
    }
  });
}

test('identity follows the weight bytes and survives a copy', async () => {
  const src = path.join(fixturesDir, 'opt');
  const dir = copyToTemp(src);
  const [a, b] = [await loadModel(src), await loadModel(dir)];
  assert.match(a.id, /^sha256:[0-9a-f]{64}$/);
  assert.equal(b.id, a.id);
  a.dispose();
  b.dispose();
  const f = path.join(dir, 'model.safetensors');
  const bytes = fs.readFileSync(f);
  bytes[bytes.length - 1] ^= 1;
  fs.writeFileSync(f, bytes);
  const c = await loadModel(dir);
  assert.notEqual(c.id, a.id);
  c.dispose();
});
