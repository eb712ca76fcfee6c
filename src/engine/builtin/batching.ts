// Grouping variable-length rows into batches and building the padded inputs and attention masks.
import * as tf from '@tensorflow/tfjs-core';

/** A large negative bias instead of -Infinity, so a fully masked row (padding) stays finite. */
export const MASKED = -1e9;

/**
 * Indices of `lengths` grouped into batches: longest first, each batch holding at most
 * `maxTokens` padded tokens (rows x longest row) and at least one row.
 */
export function lengthSortedBatches(lengths: number[], maxTokens: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b] - lengths[a] || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  let width = 0;
  for (const i of order) {
    const w = Math.max(width, lengths[i], 1);
    if (current.length > 0 && (current.length + 1) * w > maxTokens) {
      batches.push(current);
      current = [];
    }
    if (current.length === 0) width = Math.max(lengths[i], 1);
    current.push(i);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Rows padded on the right (or left) to one length, with 1/0 masks. */
export function pad(rows: number[][], side: 'left' | 'right', padId = 0): { ids: number[][]; keyMask: number[][]; width: number } {
  const width = Math.max(...rows.map((r) => r.length));
  const ids: number[][] = [];
  const keyMask: number[][] = [];
  for (const r of rows) {
    const fill = new Array<number>(width - r.length).fill(padId);
    const zeros = new Array<number>(width - r.length).fill(0);
    const ones = new Array<number>(r.length).fill(1);
    ids.push(side === 'right' ? [...r, ...fill] : [...fill, ...r]);
    keyMask.push(side === 'right' ? [...ones, ...zeros] : [...zeros, ...ones]);
  }
  return { ids, keyMask, width };
}

/** Positions counted from each row's first real token (transformers: cumsum(mask) - 1), 0 on padding. */
export function positionsFromMask(keyMask: number[][], from: number, count: number): number[][] {
  return keyMask.map((m) => {
    let seen = 0;
    for (let j = 0; j < from; j++) seen += m[j];
    const out: number[] = [];
    for (let j = from; j < from + count; j++) {
      out.push(m[j] ? seen : 0);
      seen += m[j];
    }
    return out;
  });
}

/**
 * The additive attention bias [B, 1, T, S] for T queries at key positions from..from+T-1 over S keys:
 * a query sees keys at or before its own position that are not padding.
 */
export function causalMask(keyMask: number[][], from: number, queries: number): tf.Tensor4D {
  const b = keyMask.length, s = keyMask[0].length;
  const data = new Float32Array(b * queries * s);
  for (let i = 0; i < b; i++) {
    for (let q = 0; q < queries; q++) {
      const base = (i * queries + q) * s;
      for (let j = 0; j < s; j++) data[base + j] = keyMask[i][j] && j <= from + q ? 0 : MASKED;
    }
  }
  return tf.tensor4d(data, [b, 1, queries, s]);
}
