// Both trainers record a run through one builder (src/train/run-attributes.ts): the same options
// give the same runs row on the built-in trainer and on the hf backend (prepared and written as a
// SLURM script, not submitted, so no Python runs), bar the backend's name and its fingerprint.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ResultStore } from '../../src/store/result-store.ts';
import { studyBTask } from '../../src/tasks/index.ts';
import { train, type TrainOptions } from '../../src/train/index.ts';
import { trainHf } from '../../src/train/hf/index.ts';
import type { Example } from '../../src/types.ts';
import { repoRoot, tempDir } from './helpers.ts';

const model = path.join(repoRoot, 'test/engine/fixtures/opt');
const examples: Example[] = Array.from({ length: 10 }, (_, i) => ({
  id: `e${i}`, fields: { input: `text number ${i}` }, label: i % 3 ? 'negative' : 'positive',
}));

for (const method of ['full', 'lora'] as const) {
  test(`${method}: the built-in and the hf trainer record the same run attributes`, async () => {
    const dir = tempDir('genstudy-attrs-');
    const store = ResultStore.open(path.join(dir, 'results.sqlite'));
    try {
      const options = (run: string): TrainOptions => ({
        model, outDir: path.join(dir, run), task: studyBTask('sentiment'), train: examples, dataName: 'ten', method,
        lr: 1e-4, batchSize: 4, gradAccum: 1, maxSteps: 2, seed: 3, schedule: 'constant', checkpoints: {}, store, run,
        lora: method === 'lora' ? { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'v_proj'] } : undefined,
      });
      await train(options('builtin'));
      await trainHf(options('hf'), { launcher: 'slurm', noSubmit: true });
      const row = (id: string) => {
        const r = store.runs().find((x) => x.id === id)!;
        assert.ok(r, `no runs row "${id}"`);
        const { fingerprint, backend, ...attributes } = r.attributes as Record<string, unknown>;
        assert.match(String(fingerprint), /\S/);
        return { backend, attributes, model: r.model, trainingSet: r.trainingSet, method: r.method, seed: r.seed };
      };
      const builtin = row('builtin');
      const hf = row('hf');
      assert.deepEqual([builtin.backend, hf.backend], ['builtin', 'hf']);
      assert.deepEqual(hf, { ...builtin, backend: 'hf' });
      assert.equal(builtin.attributes.steps, 2, 'what the run did: its steps');
      assert.equal(builtin.attributes.epochs, 0.67, 'the epochs those steps make (2 decimals): 2 steps of 3 batches an epoch');
      assert.equal('maxSteps' in builtin.attributes, false);
      if (method === 'full') assert.equal(builtin.attributes.lora, null, 'a full fine-tune records LoRA as null, not left out');
      else assert.deepEqual(builtin.attributes.lora, { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'v_proj'] });
    } finally {
      store.close();
    }
  });
}
