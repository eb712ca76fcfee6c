// Scoring reads the final hidden states at the scored positions only (StepInputs.at): the last layer
// runs what follows its attention on those rows alone, and the head and the log-probabilities run
// there. Both must give what the full pass gives, on right-padded rows of different lengths (rows over
// 128 positions attend in blocks of queries on the native path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadModel } from '../../src/engine/index.ts';
import { pad } from '../../src/engine/builtin/batching.ts';
import { logprobsAtPositions } from '../../src/engine/builtin/position-logprobs.ts';
import { fixturesDir, goldenDir, maxAbsDiff } from './helpers.ts';

const models: [string, string | undefined][] = [
  ...['opt', 'opt-postnorm', 'olmo2', 'qwen2', 'llama-variants'].map((n): [string, string] => [n, path.join(fixturesDir, n)]),
  ['gpt2 golden', goldenDir('gpt2')],
  ['llama golden', goldenDir('llama')],
];

/** log-softmax of `row` at `token`, in double precision. */
function logSoftmaxAt(row: Float32Array, token: number): number {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  return row[token] - max - Math.log(sum);
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

for (const [name, dir] of models) {
  test(`${name}: hidden states and log-probs at the scored positions equal the full pass's (right-padded rows of different lengths)`, async (t) => {
    if (!dir) return t.skip('needs ../shared/golden/engine');
    const model = await loadModel(dir);
    try {
      const v = model.arch.vocabSize;
      // Learned position tables bound the length; rotary models run past their config's hint.
      const learned = model.arch.modelType === 'opt' || model.arch.modelType === 'gpt2';
      const long = learned ? Math.min(150, model.maxLength) : 150;
      const lengths = [long, Math.floor(long * 0.6) + 1, 7];
      const rows = lengths.map((n, r) => Array.from({ length: n }, (_, j) => (r * 31 + j * 17 + 3) % v));
      const { ids, keyMask, width } = pad(rows, 'right');
      // Each row's last positions, a different number per row (as continuations of different lengths).
      const scored = [Math.min(20, lengths[0]), 3, 1];
      const at = rows.flatMap((row, r) => Array.from({ length: scored[r] }, (_, j) => r * width + row.length - scored[r] + j));
      const [pruned, full] = tf.tidy(() => {
        const { hidden } = model.step(ids, keyMask, 0);
        const all = tf.reshape(hidden, [-1, hidden.shape[2]]);
        return [model.hiddenAt(ids, keyMask, at), tf.gather(all, tf.tensor1d(at, 'int32'))];
      });
      assert.deepEqual(pruned.shape, full.shape);
      const hiddenDiff = maxAbsDiff(pruned.dataSync(), full.dataSync());
      tf.dispose([pruned, full]);
      assert.ok(hiddenDiff < 1e-5, `hidden states at the scored positions: ${hiddenDiff}`);

      const targets = at.map((_, i) => (i * 7 + 1) % v);
      const got = await logprobsAtPositions(model, ids, keyMask, at, targets);
      const logits = await model.logits(rows);
      let worst = 0;
      at.forEach((flat, i) => {
        const r = Math.floor(flat / width), p = flat % width;
        const row = logits[r].subarray(p * v, (p + 1) * v);
        worst = Math.max(worst, Math.abs(got.logprobs[i] - logSoftmaxAt(row, targets[i])));
        assert.equal(got.argmax[i], argmax(row), `argmax at row ${r}, position ${p}`);
      });
      assert.ok(worst < 1e-5, `log-probs at the scored positions: ${worst}`);
    } finally {
      model.dispose();
    }
  });
}
