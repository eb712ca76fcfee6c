// The lm head and log-softmax at chosen positions of a padded batch only: for each position, the
// log-probability of a target token, the argmax, and optionally the k most likely tokens. The lm
// head runs on at most model.logitsPerChunk logits at a time, each chunk in its own scope, so a
// large vocabulary (150k for Qwen2) does not need rows x vocab floats several times over. Used by
// score() and by `genstudy serve`'s prompt log-probs, so both give the same numbers.
import * as tf from '@tensorflow/tfjs-core';
import type { ForwardModel } from './forward-model.ts';
import { fusedOpsApply, nativeLogprobsAt } from './native/fused-ops.ts';

export interface PositionResults {
  /** log P(target) at each position. */
  logprobs: Float32Array | Int32Array | Uint8Array;
  /** The most likely token at each position. */
  argmax: Float32Array | Int32Array | Uint8Array;
  /** With topK: per position, k token ids and their log-probabilities (row-major, k per position). */
  topIds?: Float32Array | Int32Array | Uint8Array;
  topLogprobs?: Float32Array | Int32Array | Uint8Array;
}

/**
 * `at` are flat indices (row * width + position) into the padded batch `ids`; `target` the token
 * whose log-probability is read at each. `topK` > 0 also returns the top-k tokens there.
 */
export async function logprobsAtPositions(
  model: ForwardModel, ids: number[][], keyMask: number[][], at: readonly number[], target: readonly number[], topK = 0,
): Promise<PositionResults> {
  const vocab = model.arch.vocabSize;
  const k = Math.max(0, Math.min(topK, vocab));
  const chunk = Math.max(1, Math.floor(model.logitsPerChunk / vocab));
  const outputs = tf.tidy(() => {
    const rowsAt = model.hiddenAt(ids, keyMask, at);
    const parts: tf.Tensor[][] = [];
    for (let start = 0; start < at.length; start += chunk) {
      const n = Math.min(chunk, at.length - start);
      parts.push(tf.tidy(() => {
        const logits = model.logitsOf(tf.slice(rowsAt, [start, 0], [n, -1]));
        if (k === 0 && fusedOpsApply()) {
          const r = nativeLogprobsAt(logits, tf.tensor1d(target.slice(start, start + n), 'int32'));
          return [r.logprobs, r.argmax];
        }
        // log-softmax read at the targets only: logit[target] - logsumexp(row).
        const lse = tf.logSumExp(logits, 1, true);
        const flat = tf.tensor1d(target.slice(start, start + n).map((tok, r) => r * vocab + tok), 'int32');
        const out = [tf.sub(tf.gather(tf.reshape(logits, [-1]), flat), tf.reshape(lse, [-1])), tf.argMax(logits, 1)];
        if (k > 0) {
          const best = tf.topk(logits, k);
          out.push(best.indices, tf.sub(best.values, lse));
        }
        return out;
      }));
    }
    return parts.length === 1 ? parts[0] : parts[0].map((_, c) => tf.concat(parts.map((p) => p[c])));
  });
  const data = await Promise.all(outputs.map((t) => t.data()));
  for (const t of outputs) t.dispose();
  return { logprobs: data[0], argmax: data[1], topIds: data[2], topLogprobs: data[3] };
}
