// The order in which training examples are seen: each epoch a permutation seeded by (seed, epoch)
// (or the file order without shuffling), cut into micro-batches that never cross an epoch; an
// optimiser step takes `gradAccum` consecutive micro-batches of that stream. Everything is a pure
// function of (seed, sizes, step), so a resumed run needs only the step number to continue exactly.
import { seededRandom } from '../seeded-random.ts';

export interface OrderOptions { examples: number; batchSize: number; gradAccum: number; epochs: number; maxSteps?: number; shuffle: boolean;
  seed: number }

export function microBatchesPerEpoch(o: OrderOptions): number {
  return Math.ceil(o.examples / o.batchSize);
}

export function totalSteps(o: OrderOptions): number {
  if (o.maxSteps !== undefined && o.maxSteps > 0) return o.maxSteps;
  return Math.ceil((o.epochs * microBatchesPerEpoch(o)) / o.gradAccum);
}

/** Passes over the training data that `steps` optimiser steps make (400 steps over 2000 examples at batch 16: 3.2). */
export function epochsOfSteps(o: Pick<OrderOptions, 'examples' | 'batchSize' | 'gradAccum'>, steps: number): number {
  return (steps * o.gradAccum) / Math.ceil(o.examples / o.batchSize);
}

const permutations = new Map<string, number[]>();

function epochOrder(o: OrderOptions, epoch: number): number[] {
  const key = `${o.seed}/${o.examples}/${o.shuffle}/${epoch}`;
  let p = permutations.get(key);
  if (!p) {
    const ids = Array.from({ length: o.examples }, (_, i) => i);
    p = o.shuffle ? seededRandom(o.seed, 'epoch', epoch).shuffle(ids) : ids;
    if (permutations.size > 4) permutations.clear();
    permutations.set(key, p);
  }
  return p;
}

/** The example indices of micro-batch `k` of the stream (max steps may run past the epochs: they wrap). */
export function microBatch(o: OrderOptions, k: number): { epoch: number; indices: number[] } {
  const per = microBatchesPerEpoch(o);
  const epoch = Math.floor(k / per);
  const within = k % per;
  return { epoch, indices: epochOrder(o, epoch).slice(within * o.batchSize, (within + 1) * o.batchSize) };
}

/** The micro-batches of optimiser step `step` (0-based): gradAccum of them, fewer at the very end of an epoch-bounded run. */
export function stepMicroBatches(o: OrderOptions, step: number): { epoch: number; indices: number[] }[] {
  const limit = o.maxSteps !== undefined && o.maxSteps > 0 ? Infinity : o.epochs * microBatchesPerEpoch(o);
  const out = [];
  for (let k = step * o.gradAccum; k < Math.min((step + 1) * o.gradAccum, limit); k++) out.push(microBatch(o, k));
  return out;
}
