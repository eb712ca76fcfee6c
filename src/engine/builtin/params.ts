// The weights of a model as tfjs tensors keyed by their Hugging Face parameter names, plus what each
// family expects (ParamSpec). Linear weights, stored by PyTorch as [out, in], are kept here in
// [in, out] layout so that forward passes use plain matMuls (see blocks.ts); loading and saving
// transpose them. Tensors can be replaced by tf.Variables for training.
import * as tf from '@tensorflow/tfjs-core';

export interface ParamSpec {
  /** The Hugging Face parameter name as written by transformers' save_pretrained. */
  name: string;
  /** Its shape in the checkpoint file. */
  shape: number[];
  /** A torch.nn.Linear weight ([out, in] in the file, [in, out] in memory). */
  linear?: boolean;
  /**
   * A transformers Conv1D weight (GPT-2's projections): [in, out] in the file as in memory, so read
   * as stored; PEFT adapts such a layer with fan_in_fan_out.
   */
  conv1d?: boolean;
  /** May be absent from the file (e.g. a tied lm_head). */
  optional?: boolean;
  /** A norm's scale (LayerNorm, RMSNorm): initialised to 1 from scratch, as transformers' _init_weights does. */
  norm?: boolean;
  /**
   * A projection into the residual stream whose initial standard deviation transformers divides by
   * sqrt(2 x layers) (GPT-2's _init_weights: attn.c_proj and mlp.c_proj).
   */
  residual?: boolean;
}

export class Params {
  private readonly derivedCache = new Map<string, tf.Tensor>();

  /**
   * @param tensors parameters by Hugging Face name, in memory layout
   * @param cacheDerived keep tensors derived from parameters (e.g. a transposed tied embedding)
   *   between calls; turn off when the parameters change (training)
   */
  constructor(readonly tensors: Map<string, tf.Tensor>, readonly cacheDerived = true) {}

  get(name: string): tf.Tensor {
    const t = this.tensors.get(name);
    if (!t) throw new Error(`internal: parameter ${name} was not loaded`);
    return t;
  }

  maybe(name: string): tf.Tensor | undefined {
    return this.tensors.get(name);
  }

  /** A tensor computed from parameters, cached when cacheDerived is set (so never disposed by tidy). */
  derived(key: string, make: () => tf.Tensor): tf.Tensor {
    if (!this.cacheDerived) return make();
    let t = this.derivedCache.get(key);
    if (!t) {
      t = tf.keep(tf.tidy(make));
      this.derivedCache.set(key, t);
    }
    return t;
  }

  dispose(): void {
    for (const t of this.derivedCache.values()) t.dispose();
    this.derivedCache.clear();
    for (const t of this.tensors.values()) t.dispose();
  }
}
