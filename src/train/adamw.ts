// AdamW with decoupled weight decay, as torch.optim.AdamW (amsgrad = False, maximize = False):
//   p <- p (1 - lr wd)
//   m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2
//   p <- p - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// Written here rather than taken from tfjs's AdamOptimizer because that one has coupled (L2)
// decay at best, a different eps placement, and no exportable state for checkpoints.
import * as tf from '@tensorflow/tfjs-core';
import { adamwKernelAvailable, adamwUpdate, adamwUpdateInPlace } from '../engine/index.ts';

export interface AdamWOptions {
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
  /** Parameter names that get no weight decay (Trainer: biases and norm weights). */
  noDecay?: ReadonlySet<string>;
}

export class AdamW {
  /** Number of updates made (PyTorch's state["step"]). */
  t = 0;
  readonly m = new Map<string, tf.Variable>();
  readonly v = new Map<string, tf.Variable>();
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  private readonly noDecay: ReadonlySet<string>;
  /**
   * The update order: smallest parameters first (stable). An update that cannot run in place holds
   * the old and new p, m and v of its parameter at once, so the largest (a tied embedding: 113 MB
   * each at SmolLM-135M's shape) comes last, when the other gradients have been released (step's
   * releaseGradients).
   */
  private readonly order: string[];

  constructor(readonly params: ReadonlyMap<string, tf.Variable>, o: AdamWOptions = {}) {
    [this.beta1, this.beta2] = o.betas ?? [0.9, 0.999];
    this.eps = o.eps ?? 1e-8;
    this.weightDecay = o.weightDecay ?? 0;
    this.noDecay = o.noDecay ?? new Set();
    // A variable shares its initial tensor's data, and that tensor keeps it alive after the first
    // update assigns new data: made inside tidy, the zeros are released with the first update
    // (two parameter-sized copies: ~1 GB at SmolLM-135M's shape).
    for (const [name, p] of params) {
      this.m.set(name, tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
      this.v.set(name, tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
    }
    this.order = [...params.keys()].sort((a, b) => params.get(a)!.size - params.get(b)!.size);
  }

  /**
   * One update with gradients by parameter name (missing gradients count as zero), each first
   * multiplied by gradScale (global-norm clipping's factor, clip.ts). With releaseGradients, each
   * gradient is disposed as soon as its parameter is updated (the caller owns none of them after).
   */
  step(grads: ReadonlyMap<string, tf.Tensor>, lr: number, gradScale = 1, releaseGradients = false): void {
    this.t += 1;
    const bc1 = 1 - this.beta1 ** this.t;
    const bc2Sqrt = Math.sqrt(1 - this.beta2 ** this.t);
    const update = adamwKernelAvailable() ? adamwUpdate : adamwComposition;
    for (const name of this.order) {
      const p = this.params.get(name)!;
      const g = grads.get(name);
      const m = this.m.get(name)!;
      const v = this.v.get(name)!;
      tf.tidy(() => {
        const decay = this.noDecay.has(name) ? 0 : this.weightDecay;
        const k = [1 - lr * decay, this.beta1, 1 - this.beta1, this.beta2, 1 - this.beta2, bc2Sqrt, this.eps, lr / bc1, gradScale];
        const grad = g ?? tf.zerosLike(p);
        // In place where it can (the state never moves on the heap); else new p, m and v.
        if (adamwUpdateInPlace(p, grad, m, v, k)) return;
        const [po, mo, vo] = update(p, grad, m, v, k);
        m.assign(mo);
        v.assign(vo);
        p.assign(po);
      });
      if (releaseGradients) g?.dispose();
    }
    if (releaseGradients) for (const g of grads.values()) g.dispose();
  }

  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
  }
}

/**
 * One update as tfjs ops, where the engine's kernel (adamwUpdate: the same operations in the same
 * order, so the same bits) cannot run: [p, m, v] after it, k as the kernel's ADAMW_CONSTANTS orders them.
 */
export function adamwComposition(p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: readonly number[]): tf.Tensor[] {
  const [decay, b1, nb1, b2, nb2, bc2, eps, step, gscale] = k;
  return tf.tidy(() => {
    const gs = tf.mul(g, gscale);
    const mo = tf.add(tf.mul(m, b1), tf.mul(gs, nb1));
    const vo = tf.add(tf.mul(v, b2), tf.mul(tf.mul(gs, gs), nb2));
    const denom = tf.add(tf.div(tf.sqrt(vo), bc2), eps);
    return [tf.sub(tf.mul(p, decay), tf.mul(tf.div(mo, denom), step)), mo, vo];
  });
}
