// Global-norm gradient clipping as torch.nn.utils.clip_grad_norm_: the norm over all gradients
// together; when max_norm / (norm + 1e-6) < 1 every gradient is scaled by that factor. Returns
// the norm before clipping (what Trainer logs as grad_norm). maxNorm 0 only measures.
import * as tf from '@tensorflow/tfjs-core';

export async function clipByGlobalNorm(grads: Map<string, tf.Tensor>, maxNorm: number): Promise<number> {
  if (grads.size === 0) return 0;
  const normT = tf.tidy(() => tf.sqrt(tf.addN([...grads.values()].map((g) => tf.sum(tf.square(g))))));
  const norm = (await normT.data())[0];
  normT.dispose();
  const coef = maxNorm / (norm + 1e-6);
  if (maxNorm > 0 && coef < 1) {
    for (const [name, g] of grads) {
      grads.set(name, tf.mul(g, coef));
      g.dispose();
    }
  }
  return norm;
}
