// What training adds to a model's forward pass, owned by the model (BuiltinModel.training) and handed
// to the family's forward in StepInputs, so that two models in one process cannot interfere:
// - extra terms on linear layers, keyed by the layer's weight tensor: LoRA adapters (lora.ts), also
//   attached to evaluate an adapter without merging it;
// - the model's own dropout (embeddings, attention probabilities, residual branches): off unless the
//   trainer starts it for a forward pass with a seed; the masks then depend only on that seed and the
//   order of the calls, so a resumed run draws the same masks as an uninterrupted one.
// With nothing attached and dropout off, a forward pass does no extra tensor op.
import * as tf from '@tensorflow/tfjs-core';
import { applyDropout } from './simd/dropout-mask-kernel.ts';

/** A linear layer's output rows y [N, out] plus an extra term made from its input rows x2 [N, in]. */
export type LinearAdapter = (x2: tf.Tensor2D, y: tf.Tensor2D) => tf.Tensor2D;

export class TrainingContext {
  private readonly adapters = new Map<tf.Tensor, LinearAdapter>();
  private dropoutSeed: number | undefined;
  private dropoutCalls = 0;

  /** The adapter attached to the linear layer whose weight is `w`, if any. */
  adapterOf(w: tf.Tensor): LinearAdapter | undefined {
    return this.adapters.get(w);
  }

  attachAdapter(w: tf.Tensor, adapter: LinearAdapter): void {
    this.adapters.set(w, adapter);
  }

  detachAdapter(w: tf.Tensor): void {
    this.adapters.delete(w);
  }

  /** Turns the model's dropout on, with masks seeded from `seed` and the call number (counted from 0). */
  startDropout(seed: number): void {
    this.dropoutSeed = seed;
    this.dropoutCalls = 0;
  }

  /** Turns the model's dropout off (inference). */
  stopDropout(): void {
    this.dropoutSeed = undefined;
  }

  /** Whether a dropout at `rate` draws a mask now. */
  drops(rate: number | undefined): boolean {
    return this.dropoutSeed !== undefined && !!rate;
  }

  /** Inverted dropout as torch.nn.functional.dropout in training mode; the identity while dropout is off. */
  dropout(x: tf.Tensor, rate: number | undefined): tf.Tensor {
    if (this.dropoutSeed === undefined || !rate) return x;
    const seed = this.dropoutSeed * 1000003 + this.dropoutCalls++;
    return applyDropout(x, rate, seed);
  }
}
