// firstTokenLogprobs(): the papers' label scoring. Log-softmax at the context's last position over the
// full vocabulary is read at each candidate's first token, chosen per context by encodeFirstToken
// (requests.ts): in context by default (lm-evaluation-harness's split of context + label), or the
// label tokenised on its own.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { BuiltinModel } from './model.ts';
import { encodeFirstToken } from './requests.ts';
import type { FirstTokenOptions } from '../../types.ts';

export async function firstTokenLogprobs(model: BuiltinModel, contexts: string[], candidates: string[], opts: FirstTokenOptions = {}): Promise<number[][]> {
  const enc = contexts.map((c, i) => {
    try {
      return encodeFirstToken(model.tokenizer, c, candidates, opts, model.maxLength);
    } catch (err) {
      if (err instanceof UserError) throw new UserError(`context ${i}: ${err.message}`);
      throw err;
    }
  });
  const rows = enc.map((e) => e.context);
  const nCand = candidates.length;
  const out: number[][] = new Array(contexts.length);
  for (const batch of lengthSortedBatches(rows.map((r) => r.length), model.maxBatchTokens)) {
    const { ids, keyMask, width } = pad(batch.map((i) => rows[i]), 'right');
    const picked = tf.tidy(() => {
      const { hidden } = model.step(ids, keyMask, 0);
      const last = batch.map((i, j) => j * width + rows[i].length - 1);
      const h = tf.gather(tf.reshape(hidden, [-1, hidden.shape[2]]), tf.tensor1d(last, 'int32'));
      const logp = tf.logSoftmax(model.logitsOf(h as tf.Tensor2D));
      // Each row reads its own candidate ids (in context they can differ between contexts).
      const vocab = logp.shape[1];
      const flat = batch.flatMap((i, j) => enc[i].candidates.map((t) => j * vocab + t));
      return tf.gather(tf.reshape(logp, [-1]), tf.tensor1d(flat, 'int32'));
    });
    const data = await picked.data();
    picked.dispose();
    batch.forEach((i, j) => { out[i] = Array.from(data.subarray(j * nCand, (j + 1) * nCand)); });
  }
  return out;
}
