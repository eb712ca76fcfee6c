// The training loss of a micro-batch: summed token cross-entropy at the loss positions, divided by
// `normalizer` (the number of target tokens in the whole optimiser step, so that gradient
// accumulation equals one large batch, as transformers >= 4.46 normalises). Logits are computed
// only at the loss positions: the lm head over the full vocabulary is the largest matMul of a
// small model, and only these rows are needed.
import * as tf from '@tensorflow/tfjs-core';
import { crossEntropySum, pad, positionsFromMask, type BuiltinModel } from '../engine/index.ts';
import type { TrainSequence } from './sequences.ts';

/** Scalar loss tensor; call inside tf.variableGrads / tf.tidy. */
export function microBatchLoss(model: BuiltinModel, seqs: readonly TrainSequence[], normalizer: number): tf.Scalar {
  const { ids, keyMask, width } = pad(seqs.map((s) => s.ids), 'right', 0);
  // Study A's replay: the padding inside a sequence is read as padding, at the family's pad positions.
  let positions: number[][] | undefined;
  if (seqs.some((s) => s.realLength !== undefined)) {
    seqs.forEach((s, i) => { if (s.realLength !== undefined) for (let j = s.realLength; j < width; j++) keyMask[i][j] = 0; });
    positions = positionsFromMask(keyMask, 0, width);
    const padPosition = model.family.padPosition ?? ((j: number) => j);
    seqs.forEach((s, i) => { if (s.realLength !== undefined) for (let j = s.realLength; j < width; j++) positions![i][j] = padPosition(j); });
  }
  const rows: number[] = [];
  const targets: number[] = [];
  seqs.forEach((s, i) => {
    for (let j = 0; j < s.lossPositions.length; j++) {
      rows.push(i * width + s.lossPositions[j]);
      targets.push(s.targets[j]);
    }
  });
  const { hidden } = model.step(ids, keyMask, 0, undefined, positions);
  // In its own scope, so that the logits ([rows x vocab], the largest tensor of a small model) are
  // freed once the loss is computed rather than when the whole backward pass ends: the backward
  // pass needs only what the tape saved (the hidden rows, the head, the log-softmax).
  return tf.tidy(() => {
    const flat = tf.reshape(hidden, [-1, hidden.shape[2]]);
    const picked = tf.gather(flat, tf.tensor1d(rows, 'int32')) as tf.Tensor2D;
    const logits = model.logitsOf(picked);
    return tf.div(crossEntropySum(logits, targets), normalizer) as tf.Scalar;
  });
}

/** Non-padding input tokens of a micro-batch (what tokens per second counts). */
export function inputTokens(seqs: readonly TrainSequence[]): number {
  return seqs.reduce((n, s) => n + s.ids.length, 0);
}
