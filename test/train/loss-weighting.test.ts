// How an optimiser step weighs its micro-batches. step-tokens: the step's summed
// token loss over all its target tokens (transformers >= 4.46). micro-batch-mean: each micro-batch's
// own token mean, averaged over the accumulation steps, as the releases' transformers did. The
// reference here is computed the old way, independently of loss.ts: each sequence's full-vocabulary
// log-softmax (tf.logSoftmax, not the custom cross-entropy op), token means per micro-batch, their
// average; its gradient's global norm is compared with the step's (clipping off).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { BuiltinModel } from '../../src/engine/builtin/model.ts';
import { Params } from '../../src/engine/builtin/params.ts';
import { AdamW, optimiserStep, type TrainSequence } from '../../src/train/index.ts';
import { loaded, tinyModelDir } from './helpers.ts';

/** Summed target NLL of one sequence, read off the full logits with tf.logSoftmax. */
function sequenceNll(model: BuiltinModel, s: TrainSequence): tf.Scalar {
  const { hidden } = model.step([s.ids], [s.ids.map(() => 1)], 0);
  const logp = tf.logSoftmax(model.logitsOf(tf.reshape(hidden, [-1, hidden.shape[2]]) as tf.Tensor2D));
  const picked = s.lossPositions.map((p, j) => tf.slice(logp, [p, s.targets[j]], [1, 1]));
  return tf.neg(tf.sum(tf.concat(picked.map((t) => tf.reshape(t, [1]))))) as tf.Scalar;
}

test('micro-batch-mean equals the mean of micro-batch token means (the old way); step-tokens the step\'s token mean; they differ', async () => {
  enableTrainingGradients();
  const base = await loaded(await tinyModelDir('gpt2'));
  const vars = new Map<string, tf.Variable>();
  for (const [n, t] of base.params.tensors) vars.set(n, tf.variable(tf.clone(t), true));
  const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
    base.tokenizer, base.config);
  // Like study B's sentiment ("positive": 3 target tokens, "negative": 2) and summaries of unequal length.
  const seq = (id: string, ids: number[], nTargets: number): TrainSequence => {
    const lossPositions = Array.from({ length: nTargets }, (_, j) => ids.length - nTargets + j - 1);
    return { exampleId: id, ids: ids.slice(0, -1), lossPositions, targets: lossPositions.map((p) => ids[p + 1]) };
  };
  const batches: TrainSequence[][] = [
    [seq('a', [3, 5, 7, 9, 11, 4], 3), seq('b', [6, 8, 10, 2], 1)],
    [seq('c', [12, 14, 16, 18, 20, 22, 24, 26], 6)],
  ];
  const all = batches.flat();
  const names = [...vars.keys()];
  const reference = (weighting: 'old' | 'new') => tf.variableGrads(() => {
    const nll = batches.map((b) => b.map((s) => sequenceNll(model, s)));
    if (weighting === 'new') return tf.div(tf.addN(nll.flat()), all.reduce((n, s) => n + s.targets.length, 0)) as tf.Scalar;
    const means = nll.map((b, i) => tf.div(tf.addN(b), batches[i].reduce((n, s) => n + s.targets.length, 0)));
    return tf.div(tf.addN(means), batches.length) as tf.Scalar;
  }, names.map((n) => vars.get(n)!));
  const normOf = (g: Record<string, tf.Tensor>) => Math.sqrt(Object.values(g).reduce((n, t) => n + tf.sum(tf.square(t)).dataSync()[0], 0));
  const want: Record<string, { loss: number; norm: number }> = {};
  for (const w of ['old', 'new'] as const) {
    const { value, grads } = reference(w);
    want[w] = { loss: value.dataSync()[0], norm: normOf(grads) };
  }
  const got: Record<string, { loss: number; gradNorm: number }> = {};
  for (const [w, lossWeighting] of [['old', 'micro-batch-mean'], ['new', 'step-tokens']] as const) {
    // lr 0: the step measures and changes nothing, so both weightings see the same weights.
    const optimizer = new AdamW(vars);
    got[w] = await optimiserStep({ model, trainable: vars, optimizer, maxGradNorm: 0, seed: 1, lossWeighting, gradAccum: 2 }, batches, 0, 0);
    optimizer.dispose();
  }
  for (const w of ['old', 'new'] as const) {
    assert.ok(Math.abs(got[w].loss - want[w].loss) < 1e-5 * Math.max(1, want[w].loss), `${w}: loss ${got[w].loss} vs ${want[w].loss}`);
    assert.ok(Math.abs(got[w].gradNorm - want[w].norm) < 1e-4 * want[w].norm, `${w}: grad norm ${got[w].gradNorm} vs ${want[w].norm}`);
  }
  // The two weightings really differ on these micro-batches (4 and 6 target tokens).
  assert.ok(Math.abs(want.old.loss - want.new.loss) > 1e-3, `${want.old.loss} vs ${want.new.loss}`);
  assert.ok(Math.abs(got.old.gradNorm - got.new.gradNorm) > 1e-3 * got.new.gradNorm);
  model.dispose();
});

test('a micro-batch whose targets were all truncated away adds no loss and no gradient under either weighting', async () => {
  enableTrainingGradients();
  const base = await loaded(await tinyModelDir('gpt2'));
  const vars = new Map<string, tf.Variable>();
  for (const [n, t] of base.params.tensors) vars.set(n, tf.variable(tf.clone(t), true));
  const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
    base.tokenizer, base.config);
  const full: TrainSequence = { exampleId: 'a', ids: [3, 5, 7, 9], lossPositions: [2, 3], targets: [9, 4] };
  const empty: TrainSequence = { exampleId: 'e', ids: [3, 5, 7, 9, 11], lossPositions: [], targets: [], cutTargets: 4 };
  for (const lossWeighting of ['micro-batch-mean', 'step-tokens'] as const) {
    const optimizer = new AdamW(vars);
    const alone = await optimiserStep({ model, trainable: vars, optimizer, maxGradNorm: 0, seed: 1, lossWeighting, gradAccum: 1 }, [[full]], 0, 0);
    const withEmpty = await optimiserStep({ model, trainable: vars, optimizer, maxGradNorm: 0, seed: 1, lossWeighting, gradAccum: 1 },
      [[full], [empty]], 0, 0);
    optimizer.dispose();
    assert.ok(Math.abs(alone.loss - withEmpty.loss) < 1e-6 && Math.abs(alone.gradNorm - withEmpty.gradNorm) < 1e-6 * alone.gradNorm, lossWeighting);
    assert.ok(alone.loss > 0);
  }
  model.dispose();
});
