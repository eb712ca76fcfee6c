// Training state belongs to a model: dropout started on one model and adapters attached to one
// model leave every other model's forward pass as it was, even one over the same weight tensors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { BuiltinModel, loadModel, LoraAdapters } from '../../src/engine/index.ts';
import { maxAbsDiff, tinyModelDir } from './helpers.ts';

const rows = [[1, 5, 9, 7, 3], [1, 8, 5]];

test('two models in one process: dropout started on one does not reach the other', async () => {
  const dir = await tinyModelDir('gpt2', { hidden: 16, layers: 1, seed: 2, dropout: 0.2 });
  const a = await loadModel(dir);
  const b = await loadModel(dir);
  const before = await b.logits(rows);
  a.training.startDropout(11);
  try {
    const dropped = await a.logits(rows);
    assert.ok(maxAbsDiff(dropped[0], before[0]) > 1e-3, 'dropout is on for the model it was started on');
    const other = await b.logits(rows);
    for (let i = 0; i < rows.length; i++) assert.equal(maxAbsDiff(other[i], before[i]), 0, `row ${i} of the other model`);
  } finally {
    a.training.stopDropout();
  }
  const after = await a.logits(rows);
  for (let i = 0; i < rows.length; i++) assert.equal(maxAbsDiff(after[i], before[i]), 0, `row ${i} once dropout is stopped`);
  a.dispose();
  b.dispose();
});

test('two models over the same weights: an adapter attached to one changes that one only', async () => {
  const a = await loadModel(await tinyModelDir('llama', { hidden: 16, layers: 1, seed: 3 }));
  const b = new BuiltinModel(a.id, a.dir, a.family, a.arch, a.params, a.tokenizer, a.config);
  const before = await b.logits(rows);
  const adapters = LoraAdapters.create(a, { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'o_proj', 'down_proj'] }, 1);
  // A fresh adapter's B is zero (it changes nothing): give it values.
  for (const p of adapters.pairs) p.b.assign(tf.fill(p.b.shape, 0.5));
  adapters.attach();
  const adapted = await a.logits(rows);
  assert.ok(maxAbsDiff(adapted[0], before[0]) > 1e-3, 'the adapter changes the model it is attached to');
  const other = await b.logits(rows);
  for (let i = 0; i < rows.length; i++) assert.equal(maxAbsDiff(other[i], before[i]), 0, `row ${i} of the other model`);
  adapters.detach();
  const detached = await a.logits(rows);
  for (let i = 0; i < rows.length; i++) assert.equal(maxAbsDiff(detached[i], before[i]), 0, `row ${i} once detached`);
  adapters.dispose();
  a.dispose();
});
