// generate(): greedy decoding with a KV cache, left-padded batches, stop sequences and max new tokens.
// A row ends at an end-of-sequence token (model.stopTokenIds), at its token budget, or when its text
// contains a stop sequence; the returned text is cut before the first stop sequence
// (lm-evaluation-harness's generate_until).
import * as tf from '@tensorflow/tfjs-core';
import type { GenerateRequest } from '../../types.ts';
import { lengthSortedBatches, pad } from './batching.ts';
import type { LayerCache } from './families/family.ts';
import type { ForwardModel } from './forward-model.ts';

export function generate(model: ForwardModel, reqs: GenerateRequest[]): Promise<string[]> {
  return model.inference(() => generateInBatches(model, reqs));
}

async function generateInBatches(model: ForwardModel, reqs: GenerateRequest[]): Promise<string[]> {
  const prompts = reqs.map((r) => {
    const room = Math.max(1, model.maxLength - r.maxNewTokens);
    return model.tokenizer.encode(r.prompt, { addSpecialTokens: r.addSpecialTokens ?? true }).slice(-room);
  });
  const out: string[] = new Array(reqs.length);
  for (const batch of lengthSortedBatches(prompts.map((p) => p.length), model.maxBatchTokens)) {
    const texts = await generateBatch(model, batch.map((i) => prompts[i]), batch.map((i) => reqs[i]));
    batch.forEach((i, j) => { out[i] = texts[j]; });
  }
  return out;
}

/** Text before the first occurrence of any stop sequence, or undefined when none occurs (serve cuts the same way). */
export function cutAtStop(text: string, stops: string[] | undefined): string | undefined {
  let cut: number | undefined;
  for (const s of stops ?? []) {
    if (s === '') continue;
    const i = text.indexOf(s);
    if (i >= 0 && (cut === undefined || i < cut)) cut = i;
  }
  return cut === undefined ? undefined : text.slice(0, cut);
}

/** One left-padded batch of tokenised prompts (generate() sorts them into batches); exported for src/serve. */
export function generateBatch(model: ForwardModel, prompts: number[][], reqs: GenerateRequest[]): Promise<string[]> {
  return model.inference(() => decodeBatch(model, prompts, reqs));
}

async function decodeBatch(model: ForwardModel, prompts: number[][], reqs: GenerateRequest[]): Promise<string[]> {
  const tok = model.tokenizer;
  const eos = tok.eosTokenId;
  const stopIds = model.stopTokenIds;
  const rows = prompts.map((p) => (p.length > 0 ? p : [tok.bosTokenId ?? eos ?? 0]));
  const { ids, keyMask } = pad(rows, 'left', tok.padTokenId ?? eos ?? 0);
  const generated: number[][] = rows.map(() => []);
  const texts: (string | undefined)[] = rows.map(() => undefined);
  const done = reqs.map((r) => r.maxNewTokens <= 0);
  // Never past the model's longest sequence (learned position tables end there).
  const steps = Math.min(Math.max(0, ...reqs.map((r) => r.maxNewTokens)), model.maxLength - ids[0].length);
  let cache: LayerCache[] | undefined;
  let input = ids;
  let from = 0;
  try {
    for (let s = 0; s < steps && done.some((d) => !d); s++) {
      const past = cache;
      const [next, newCache] = tf.tidy(() => {
        const { hidden, cache: c } = model.step(input, keyMask, from, past);
        const last = tf.reshape(tf.slice(hidden, [0, hidden.shape[1] - 1, 0], [-1, 1, -1]), [hidden.shape[0], hidden.shape[2]]);
        return [tf.argMax(model.logitsOf(last as tf.Tensor2D), 1), c] as const;
      });
      for (const layer of newCache) { tf.keep(layer.k); tf.keep(layer.v); }
      disposeCache(past);
      cache = newCache;
      const chosen = Array.from(await next.data(), Number);
      next.dispose();
      from += input[0].length;
      chosen.forEach((t, i) => {
        if (done[i]) return;
        if (stopIds.has(t)) { done[i] = true; return; }
        generated[i].push(t);
        if (reqs[i].stop?.length) {
          const cut = cutAtStop(tok.decode(generated[i], { skipSpecialTokens: true }), reqs[i].stop);
          if (cut !== undefined) { texts[i] = cut; done[i] = true; }
        }
        if (generated[i].length >= reqs[i].maxNewTokens) done[i] = true;
      });
      input = chosen.map((t) => [t]);
      for (const m of keyMask) m.push(1);
    }
  } finally {
    disposeCache(cache);
  }
  return generated.map((g, i) => texts[i] ?? tok.decode(g, { skipSpecialTokens: true }));
}

function disposeCache(cache: LayerCache[] | undefined): void {
  for (const layer of cache ?? []) { layer.k.dispose(); layer.v.dispose(); }
}
