// Log-probabilities of every prompt token given the tokens before it (an echo request), with the
// top-k alternatives at each position: what an OpenAI-compatible server returns for
// `echo: true, logprobs: k` and vLLM returns as `prompt_logprobs`. Computed by the same function as
// the built-in engine's score() (engine/builtin/position-logprobs.ts), so the numbers equal score()'s.
import { lengthSortedBatches, pad, type BuiltinModel, logprobsAtPositions } from '../engine/index.ts';

export interface PositionLogprobs {
  /** log P(token i | tokens before i), for i = from..n-1 (the first token has none). */
  logprobs: number[];
  /** Per position i = from..n-1: the k most likely tokens there, most likely first. */
  top: { id: number; logprob: number }[][];
}

/**
 * Prompt log-probabilities of each row of token ids (each at least one token long), for the
 * positions from `from[i]` (default 1: all) to the row's end; the lm head runs on those only.
 */
export function promptLogprobs(model: BuiltinModel, rows: number[][], topK: number, from?: number[]): Promise<PositionLogprobs[]> {
  return model.inference(() => logprobsInBatches(model, rows, topK, from));
}

async function logprobsInBatches(model: BuiltinModel, rows: number[][], topK: number, from?: number[]): Promise<PositionLogprobs[]> {
  const out: PositionLogprobs[] = new Array(rows.length);
  // The model reads tokens 0..n-2 of a row; token n-1 is only predicted.
  const inputs = rows.map((r) => r.slice(0, -1));
  for (const batch of lengthSortedBatches(inputs.map((r) => r.length), model.maxBatchTokens)) {
    const done = await batchLogprobs(model, batch.map((i) => rows[i]), topK, batch.map((i) => Math.max(1, from?.[i] ?? 1)));
    batch.forEach((i, j) => { out[i] = done[j]; });
  }
  return out;
}

async function batchLogprobs(model: BuiltinModel, rows: number[][], topK: number, from: number[]): Promise<PositionLogprobs[]> {
  const live = rows.filter((r) => r.length > 1);
  if (live.length === 0 || rows.every((r, i) => from[i] >= r.length)) return rows.map(() => ({ logprobs: [], top: [] }));
  const inputs = rows.map((r) => (r.length > 1 ? r.slice(0, -1) : [r[0] ?? 0]));
  const { ids, keyMask, width } = pad(inputs, 'right');
  const at: number[] = [];
  const target: number[] = [];
  rows.forEach((r, i) => { for (let j = from[i]; j < r.length; j++) { at.push(i * width + j - 1); target.push(r[j]); } });
  const k = Math.max(1, Math.min(topK, model.arch.vocabSize));
  const { logprobs: lp, topIds: ti, topLogprobs: tv } = await logprobsAtPositions(model, ids, keyMask, at, target, k);
  let n = 0;
  return rows.map((r, i) => {
    const logprobs: number[] = [];
    const top: { id: number; logprob: number }[][] = [];
    for (let j = from[i]; j < r.length; j++, n++) {
      logprobs.push(lp[n]);
      const alts: { id: number; logprob: number }[] = [];
      for (let c = 0; c < k; c++) alts.push({ id: ti![n * k + c], logprob: tv![n * k + c] });
      top.push(alts);
    }
    return { logprobs, top };
  });
}
