// firstTokenLogprobs(): the papers' label scoring. Each context is encoded with the tokenizer's special
// tokens; log-softmax at its last position over the full vocabulary is read at each candidate's first
// token, the candidate tokenised as written (" Yes" keeps its leading space).
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { BuiltinModel } from './model.ts';

export async function firstTokenLogprobs(model: BuiltinModel, contexts: string[], candidates: string[]): Promise<number[][]> {
  const cand = candidates.map((c) => {
    const ids = model.tokenizer.encode(c, { addSpecialTokens: false });
    if (ids.length === 0) throw new UserError(`candidate ${JSON.stringify(c)} encodes to no tokens`);
    return ids[0];
  });
  const rows = contexts.map((c, i) => {
    const ids = model.tokenizer.encode(c).slice(-model.maxLength);
    if (ids.length === 0) throw new UserError(`context ${i} (${JSON.stringify(c.slice(0, 40))}) encodes to no tokens`);
    return ids;
  });
  const out: number[][] = new Array(contexts.length);
  for (const batch of lengthSortedBatches(rows.map((r) => r.length), model.maxBatchTokens)) {
    const { ids, keyMask, width } = pad(batch.map((i) => rows[i]), 'right');
    const picked = tf.tidy(() => {
      const { hidden } = model.step(ids, keyMask, 0);
      const last = batch.map((i, j) => j * width + rows[i].length - 1);
      const h = tf.gather(tf.reshape(hidden, [-1, hidden.shape[2]]), tf.tensor1d(last, 'int32'));
      const logp = tf.logSoftmax(model.logitsOf(h as tf.Tensor2D));
      return tf.gather(logp, tf.tensor1d(cand, 'int32'), 1);
    });
    const data = await picked.data();
    picked.dispose();
    batch.forEach((i, j) => { out[i] = Array.from(data.subarray(j * cand.length, (j + 1) * cand.length)); });
  }
  return out;
}
