// Rotary position embedding tables (transformers' LlamaRotaryEmbedding and its rope_scaling types),
// computed in float64 from the position numbers, which are data, not tensors.
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../errors.ts';

export interface RopeConfig {
  dim: number;
  theta: number;
  scaling?: { type: string; factor: number; lowFreqFactor?: number; highFreqFactor?: number; originalMaxPositions?: number };
}

export function parseRope(cfg: Record<string, unknown>, dim: number, file: string): RopeConfig {
  // Newer transformers configs nest both in `rope_parameters`.
  const params = cfg.rope_parameters as Record<string, unknown> | null | undefined;
  const thetaField = params?.rope_theta ?? cfg.rope_theta;
  const theta = thetaField === undefined ? 10000 : Number(thetaField);
  const rs = (params ?? cfg.rope_scaling) as Record<string, unknown> | null | undefined;
  if (!rs) return { dim, theta };
  const type = String(rs.rope_type ?? rs.type ?? 'default');
  if (type === 'default') return { dim, theta };
  if (type !== 'linear' && type !== 'llama3') {
    throw new UserError(`${file}: rope_scaling type "${type}" is not supported (expected default, linear or llama3)`);
  }
  return {
    dim, theta,
    scaling: {
      type, factor: Number(rs.factor),
      lowFreqFactor: rs.low_freq_factor === undefined ? undefined : Number(rs.low_freq_factor),
      highFreqFactor: rs.high_freq_factor === undefined ? undefined : Number(rs.high_freq_factor),
      originalMaxPositions: rs.original_max_position_embeddings === undefined ? undefined : Number(rs.original_max_position_embeddings),
    },
  };
}

export function inverseFrequencies(rope: RopeConfig): number[] {
  const inv: number[] = [];
  for (let i = 0; i < rope.dim; i += 2) inv.push(1 / Math.pow(rope.theta, i / rope.dim));
  const s = rope.scaling;
  if (!s) return inv;
  if (s.type === 'linear') return inv.map((f) => f / s.factor);
  // llama3: long wavelengths are slowed by `factor`, short ones kept, those between interpolated.
  const low = s.lowFreqFactor ?? 1, high = s.highFreqFactor ?? 4, orig = s.originalMaxPositions ?? 8192;
  const lowWavelen = orig / low, highWavelen = orig / high;
  return inv.map((f) => {
    const wavelen = 2 * Math.PI / f;
    if (wavelen < highWavelen) return f;
    if (wavelen > lowWavelen) return f / s.factor;
    const smooth = (orig / wavelen - low) / (high - low);
    return (1 - smooth) * f / s.factor + smooth * f;
  });
}

/** cos and sin tables [B, 1, T, dim] for the given positions (rows of equal length). */
export function rotaryTables(rope: RopeConfig, positions: number[][]): { cos: tf.Tensor4D; sin: tf.Tensor4D } {
  const inv = inverseFrequencies(rope);
  const b = positions.length, t = positions[0].length, d = rope.dim, half = d / 2;
  const cos = new Float32Array(b * t * d), sin = new Float32Array(b * t * d);
  for (let i = 0; i < b; i++) {
    for (let j = 0; j < t; j++) {
      const base = (i * t + j) * d;
      const pos = positions[i][j];
      for (let f = 0; f < half; f++) {
        const angle = pos * inv[f];
        cos[base + f] = cos[base + f + half] = Math.cos(angle);
        sin[base + f] = sin[base + f + half] = Math.sin(angle);
      }
    }
  }
  return { cos: tf.tensor4d(cos, [b, 1, t, d]), sin: tf.tensor4d(sin, [b, 1, t, d]) };
}

/** Half-width cos and sin tables [length, dim / 2] of positions 0..length-1 (onnxruntime's rotary caches). */
export function rotaryCache(rope: RopeConfig, length: number): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
  const inv = inverseFrequencies(rope);
  const half = rope.dim / 2;
  const cos = new Float32Array(length * half), sin = new Float32Array(length * half);
  for (let p = 0; p < length; p++) {
    for (let f = 0; f < half; f++) {
      cos[p * half + f] = Math.cos(p * inv[f]);
      sin[p * half + f] = Math.sin(p * inv[f]);
    }
  }
  return { cos: tf.tensor2d(cos, [length, half]), sin: tf.tensor2d(sin, [length, half]) };
}
