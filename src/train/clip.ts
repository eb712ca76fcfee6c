// Global-norm gradient clipping as torch.nn.utils.clip_grad_norm_: the norm over all gradients
// together; when max_norm / (norm + 1e-6) < 1 every gradient is to be scaled by that factor.
// The factor is handed to the optimiser (AdamW.step's gradScale), which applies it as the first
// float32 product of its update: the same bits as scaling each gradient first, without a pass over
// every gradient and a new tensor for each. maxNorm 0 only measures.
// On the wasm backend the squares are summed in float64 by the engine's kernel (sumOfSquares): tfjs's
// float32 sum, one element after another, was 6.6% low for a 28M-element gradient (SmolLM-135M's
// embedding), where PyTorch's vectorised float32 reduction is within ~1e-7.
import * as tf from '@tensorflow/tfjs-core';
import { sumOfSquares, sumOfSquaresAvailable } from '../engine/index.ts';

export interface GradientClip {
  /** The norm before clipping (what Trainer logs as grad_norm). */
  norm: number;
  /** The factor the gradients are to be multiplied by: 1 when they are not clipped. */
  scale: number;
}

export async function clipByGlobalNorm(grads: ReadonlyMap<string, tf.Tensor>, maxNorm: number): Promise<GradientClip> {
  if (grads.size === 0) return { norm: 0, scale: 1 };
  let norm: number;
  if (sumOfSquaresAvailable()) {
    norm = Math.sqrt([...grads.values()].reduce((total, g) => total + sumOfSquares(g), 0));
  } else {
    // Each square in its own scope: one tidy around them all held a second copy of every gradient.
    const squares = [...grads.values()].map((g) => tf.tidy(() => tf.sum(tf.square(g))));
    const normT = tf.tidy(() => tf.sqrt(tf.addN(squares)));
    for (const s of squares) s.dispose();
    norm = (await normT.data())[0];
    normT.dispose();
  }
  const coef = maxNorm / (norm + 1e-6);
  return { norm, scale: maxNorm > 0 && coef < 1 ? coef : 1 };
}
