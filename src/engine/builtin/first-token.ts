// firstTokenLogprobs(): the papers' label scoring. Log-softmax at the context's last position over the
// full vocabulary is read at each candidate's first token, chosen per context by encodeFirstToken
// (requests.ts): in context by default (lm-evaluation-harness's split of context + label), or the
// label tokenised on its own.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { ForwardModel } from './forward-model.ts';
import { encodeFirstTokens } from '../hf/requests.ts';
import type { FirstTokenOptions } from '../../types.ts';

export function firstTokenLogprobs(
  model: ForwardModel, contexts: string[], candidates: string[], opts: FirstTokenOptions = {},
): Promise<number[][]> {
  return model.inference(() => readFirstTokens(model, contexts, candidates, opts));
}

async function readFirstTokens(model: ForwardModel, contexts: string[], candidates: string[], opts: FirstTokenOptions): Promise<number[][]> {
  const enc = encodeFirstTokens(model.tokenizer, contexts, candidates, opts, model.maxLength);
  const nCand = candidates.length;
  if (opts.padTo !== undefined) return paddedReading(model, contexts, enc.map((e) => e.candidates), opts);
  const rows = enc.map((e) => e.context);
  const out: number[][] = new Array(contexts.length);
  for (const batch of lengthSortedBatches(rows.map((r) => r.length), model.maxBatchTokens)) {
    const { ids, keyMask, width } = pad(batch.map((i) => rows[i]), 'right');
    const picked = tf.tidy(() => {
      const h = model.hiddenAt(ids, keyMask, batch.map((i, j) => j * width + rows[i].length - 1));
      const logp = tf.logSoftmax(model.logitsOf(h));
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

/**
 * Study A's predecessor (ilboglions/DL2024, NLIDataset.py: truncation=True, padding="max_length",
 * max_length=128; OPTModel.py: logits[:, -1, :]): every context cut to its first padTo tokens and
 * right-padded with the pad token; the pad keys are masked; pad positions are what transformers
 * gives them (Family.padPosition); the log-softmax is read at position padTo - 1, a padding token
 * for every shorter context.
 */
async function paddedReading(model: ForwardModel, contexts: string[], cands: number[][], opts: FirstTokenOptions): Promise<number[][]> {
  const padTo = opts.padTo!;
  if (!Number.isInteger(padTo) || padTo < 1 || padTo > model.maxLength) {
    throw new UserError(`padTo ${padTo}: expected a whole number from 1 to the model's length ${model.maxLength}`);
  }
  const tok = model.tokenizer;
  const padId = tok.padTokenId ?? tok.eosTokenId;
  if (padId === undefined) throw new UserError('padTo: the tokenizer has neither a pad nor an EOS token (tokenizer_config.json) to pad with');
  const rows = contexts.map((c) => tok.encode(c, { addSpecialTokens: opts.addSpecialTokens ?? true }).slice(0, padTo));
  const padPosition = model.family.padPosition ?? ((j: number) => j);
  const out: number[][] = new Array(contexts.length);
  const perBatch = Math.max(1, Math.floor(model.maxBatchTokens / padTo));
  for (let start = 0; start < rows.length; start += perBatch) {
    const batch = rows.slice(start, start + perBatch).map((r, j) => ({ r, i: start + j }));
    const ids = batch.map(({ r }) => [...r, ...new Array<number>(padTo - r.length).fill(padId)]);
    const keyMask = batch.map(({ r }) => Array.from({ length: padTo }, (_, j) => (j < r.length ? 1 : 0)));
    const positions = batch.map(({ r }) => Array.from({ length: padTo }, (_, j) => (j < r.length ? j : padPosition(j))));
    const picked = tf.tidy(() => {
      const last = model.hiddenAt(ids, keyMask, batch.map((_, j) => j * padTo + padTo - 1), positions);
      const logp = tf.logSoftmax(model.logitsOf(last));
      const vocab = logp.shape[1];
      const flat = batch.flatMap(({ i }, j) => cands[i].map((t) => j * vocab + t));
      return tf.gather(tf.reshape(logp, [-1]), tf.tensor1d(flat, 'int32'));
    });
    const data = await picked.data();
    picked.dispose();
    batch.forEach(({ i }, j) => { out[i] = Array.from(data.subarray(j * cands[i].length, (j + 1) * cands[i].length)); });
  }
  return out;
}
