// score(): log P(continuation | context) with lm-evaluation-harness semantics (requests.ts), batched
// with right padding in length-sorted batches. Only the positions that predict continuation tokens go
// through the lm head and the log-softmax.
import * as tf from '@tensorflow/tfjs-core';
import type { ScoreRequest, ScoreResult } from '../../types.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { BuiltinModel } from './model.ts';
import { encodePair, type EncodedPair } from './requests.ts';

export interface TokenScores extends ScoreResult {
  /** Continuation token ids and their log-probabilities. */
  tokenIds: number[];
  tokenLogprobs: number[];
}

export async function score(model: BuiltinModel, reqs: ScoreRequest[]): Promise<ScoreResult[]> {
  return (await scoreTokens(model, reqs)).map(({ logprob, tokens, isGreedy }) => ({ logprob, tokens, isGreedy }));
}

export async function scoreTokens(model: BuiltinModel, reqs: ScoreRequest[]): Promise<TokenScores[]> {
  return scoreEncoded(model, reqs.map((r) => encodePair(model.tokenizer, r, model.maxLength)));
}

/** Scores already tokenised pairs (see requests.ts), in length-sorted batches. */
export async function scoreEncoded(model: BuiltinModel, pairs: EncodedPair[]): Promise<TokenScores[]> {
  const results: TokenScores[] = new Array(pairs.length);
  for (const batch of lengthSortedBatches(pairs.map((p) => p.input.length), model.maxBatchTokens)) {
    const scored = await scoreBatch(model, batch.map((i) => pairs[i]));
    batch.forEach((i, j) => { results[i] = scored[j]; });
  }
  return results;
}

async function scoreBatch(model: BuiltinModel, pairs: EncodedPair[]): Promise<TokenScores[]> {
  const rows = pairs.map((p) => (p.input.length > 0 ? p.input : [0]));
  const { ids, keyMask, width } = pad(rows, 'right');
  // Flat indices (row * width + position) of the positions predicting each continuation token.
  const at: number[] = [];
  const target: number[] = [];
  pairs.forEach((p, i) => {
    const first = p.input.length - p.targets.length;
    p.targets.forEach((tok, j) => { at.push(i * width + first + j); target.push(tok); });
  });
  if (at.length === 0) return pairs.map(() => ({ logprob: 0, tokens: 0, isGreedy: true, tokenIds: [], tokenLogprobs: [] }));
  const vocab = model.arch.vocabSize;
  // The lm head runs on at most model.logitsPerChunk logits at a time, each chunk in its own scope,
  // so a large vocabulary (150k for Qwen2) does not need rows x vocab floats several times over.
  const chunk = Math.max(1, Math.floor(model.logitsPerChunk / vocab));
  const [picked, greedy] = tf.tidy(() => {
    const { hidden } = model.step(ids, keyMask, 0);
    const rowsAt = tf.gather(tf.reshape(hidden, [-1, hidden.shape[2]]), tf.tensor1d(at, 'int32')) as tf.Tensor2D;
    const parts: tf.Tensor[][] = [];
    for (let start = 0; start < at.length; start += chunk) {
      const n = Math.min(chunk, at.length - start);
      parts.push(tf.tidy(() => {
        const logits = model.logitsOf(tf.slice(rowsAt, [start, 0], [n, -1]));
        // log-softmax read at the targets only: logit[target] - logsumexp(row).
        const flat = tf.tensor1d(target.slice(start, start + n).map((tok, r) => r * vocab + tok), 'int32');
        return [tf.sub(tf.gather(tf.reshape(logits, [-1]), flat), tf.logSumExp(logits, 1)), tf.argMax(logits, 1)];
      }));
    }
    return parts.length === 1 ? parts[0] : [tf.concat(parts.map((p) => p[0])), tf.concat(parts.map((p) => p[1]))];
  });
  const [lp, am] = await Promise.all([picked.data(), greedy.data()]);
  picked.dispose();
  greedy.dispose();
  let n = 0;
  return pairs.map((p) => {
    const tokenLogprobs: number[] = [];
    let isGreedy = true;
    for (const tok of p.targets) {
      tokenLogprobs.push(lp[n]);
      if (am[n] !== tok) isGreedy = false;
      n++;
    }
    return { logprob: tokenLogprobs.reduce((a, b) => a + b, 0), tokens: p.targets.length, isGreedy, tokenIds: p.targets, tokenLogprobs };
  });
}
