// Study A's replayed MNLI neutral rows in training: a label given a fixed token id
// trains toward that id (the predecessor's label 1, OPT's pad) from the same context as any other
// row, with the padded reading too; every other row is untouched; the supervised objective refuses it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTokenizer } from '../../src/engine/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import { encodeRun } from '../../src/train/trainer.ts';
import { resolveOptions } from '../../src/train/options.ts';
import { smallSuite, tinyModelDir } from './helpers.ts';

test('labelTokenIds: "neutral" rows train toward token id 1 from their own context; the other rows as before', async () => {
  const { suite } = await smallSuite();
  const dir = await tinyModelDir('gpt2');
  const tok = loadTokenizer(dir);
  const train = suite.train.slice(0, 6).map((ex, i) => (i % 3 === 1 ? { ...ex, label: 'neutral' } : ex));
  const base = { model: dir, outDir: dir, task: syntheticTask(), method: 'full' as const, lr: 1e-3, objective: 'label-token' as const };
  for (const padTo of [undefined, 24]) {
    const replayed = encodeRun(resolveOptions({ ...base, train, labelTokenIds: { neutral: 1 }, padTo }), tok, 512);
    // The same rows with their real labels: contexts must match, targets differ only on the neutral rows.
    const plain = encodeRun(resolveOptions({ ...base, train: suite.train.slice(0, 6), padTo }), tok, 512);
    replayed.forEach((s, i) => {
      assert.deepEqual(s.ids, plain[i].ids);
      assert.deepEqual(s.lossPositions, plain[i].lossPositions);
      assert.deepEqual(s.targets, i % 3 === 1 ? [1] : plain[i].targets, `row ${i}`);
    });
    assert.notDeepEqual(plain[1].targets, [1]);
  }
  assert.throws(() => encodeRun(resolveOptions({ ...base, train, labelTokenIds: { neutral: 1 }, objective: 'supervised' }), tok, 512),
    /label-token objective only/);
});
