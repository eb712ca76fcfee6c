// score(): log P(continuation | context) with lm-evaluation-harness semantics (requests.ts), batched
// with right padding in length-sorted batches. Only the positions that predict continuation tokens go
// through the lm head and the log-softmax.
import type { ScoreRequest, ScoreResult } from '../../types.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { ForwardModel } from './forward-model.ts';
import { encodePair, type EncodedPair } from '../hf/requests.ts';
import { logprobsAtPositions } from './position-logprobs.ts';

export interface TokenScores extends ScoreResult {
  /** Continuation token ids and their log-probabilities. */
  tokenIds: number[];
  tokenLogprobs: number[];
}

export async function score(model: ForwardModel, reqs: ScoreRequest[]): Promise<ScoreResult[]> {
  return (await scoreTokens(model, reqs)).map(({ logprob, tokens, isGreedy }) => ({ logprob, tokens, isGreedy }));
}

export async function scoreTokens(model: ForwardModel, reqs: ScoreRequest[]): Promise<TokenScores[]> {
  return scoreEncoded(model, reqs.map((r) => encodePair(model.tokenizer, r, model.maxLength)));
}

/** Scores already tokenised pairs (see requests.ts), in length-sorted batches. */
export function scoreEncoded(model: ForwardModel, pairs: EncodedPair[]): Promise<TokenScores[]> {
  return model.inference(() => scoreInBatches(model, pairs));
}

async function scoreInBatches(model: ForwardModel, pairs: EncodedPair[]): Promise<TokenScores[]> {
  const results: TokenScores[] = new Array(pairs.length);
  for (const batch of lengthSortedBatches(pairs.map((p) => p.input.length), model.maxBatchTokens)) {
    const scored = await scoreBatch(model, batch.map((i) => pairs[i]));
    batch.forEach((i, j) => { results[i] = scored[j]; });
  }
  return results;
}

async function scoreBatch(model: ForwardModel, pairs: EncodedPair[]): Promise<TokenScores[]> {
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
  const { logprobs: lp, argmax: am } = await logprobsAtPositions(model, ids, keyMask, at, target);
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
