// One optimiser step: forward and backward over each micro-batch (gradients summed; the loss is
// normalised by the step's target tokens, see loss.ts, or, replaying the releases' transformers, each
// micro-batch by its own target tokens and the accumulation steps), global-norm clipping, the AdamW update.
import * as tf from '@tensorflow/tfjs-core';
import { onTrainingPool, type LoraAdapters, type BuiltinModel } from '../engine/index.ts';
import { seededRandom } from '../seeded-random.ts';
import type { AdamW } from './adamw.ts';
import { clipByGlobalNorm } from './clip.ts';
import { inputTokens, microBatchLoss } from './loss.ts';
import type { TrainSequence } from './sequences.ts';
import type { LossWeighting } from '../tasks/protocol.ts';

export interface StepContext {
  model: BuiltinModel;
  /** Trainable variables by parameter name. */
  trainable: ReadonlyMap<string, tf.Variable>;
  optimizer: AdamW;
  adapters?: LoraAdapters;
  maxGradNorm: number;
  /** Seeds LoRA and model dropout, with the step and micro-batch numbers. */
  seed: number;
  /** Apply the model's own dropout (config.json rates), as transformers does in train mode. Default false. */
  modelDropout?: boolean;
  /**
   * step-tokens (default): every micro-batch's summed loss over the step's target tokens. micro-batch-mean:
   * each micro-batch's token mean divided by gradAccum, as transformers < 4.46 (and a model that
   * computes its own loss) did: training_step's loss / gradient_accumulation_steps.
   */
  lossWeighting?: LossWeighting;
  /** The configured accumulation steps micro-batch-mean divides by (the last step of an epoch may have fewer micro-batches). */
  gradAccum?: number;
}

export interface StepResult { loss: number; gradNorm: number; tokens: number }

/** One optimiser step, its native kernels on the training pool (engine/builtin/native/pool-choice.ts). */
export function optimiserStep(ctx: StepContext, batches: readonly (readonly TrainSequence[])[], step: number, lr: number): Promise<StepResult> {
  return onTrainingPool(() => stepOnPool(ctx, batches, step, lr));
}

async function stepOnPool(ctx: StepContext, batches: readonly (readonly TrainSequence[])[], step: number, lr: number): Promise<StepResult> {
  const targetsOf = (b: readonly TrainSequence[]) => b.reduce((k, s) => k + s.targets.length, 0);
  const stepTargets = batches.reduce((n, b) => n + targetsOf(b), 0);
  const normalizerOf = (b: readonly TrainSequence[]) =>
    (ctx.lossWeighting === 'micro-batch-mean' ? targetsOf(b) * (ctx.gradAccum ?? batches.length) : stepTargets);
  const vars = [...ctx.trainable.values()];
  const byVariable = new Map([...ctx.trainable].map(([name, v]) => [v.name, name]));
  const grads = new Map<string, tf.Tensor>();
  let loss = 0;
  let tokens = 0;
  try {
    for (let j = 0; j < batches.length; j++) {
      ctx.adapters?.attach(seededRandom(ctx.seed, 'dropout', step, j).int(2 ** 31));
      if (ctx.modelDropout) ctx.model.training.startDropout(seededRandom(ctx.seed, 'model-dropout', step, j).int(2 ** 31));
      tokens += inputTokens(batches[j]);
      // A micro-batch whose every target was truncated away adds no loss and no gradient.
      if (targetsOf(batches[j]) === 0) continue;
      const { value, grads: g } = tf.variableGrads(() => microBatchLoss(ctx.model, batches[j], normalizerOf(batches[j])), vars);
      loss += (await value.data())[0];
      value.dispose();
      for (const [vname, t] of Object.entries(g)) {
        const name = byVariable.get(vname)!;
        const prev = grads.get(name);
        if (prev) {
          grads.set(name, tf.add(prev, t));
          prev.dispose();
          t.dispose();
        } else grads.set(name, t);
      }
    }
  } finally {
    ctx.adapters?.attach(undefined);
    ctx.model.training.stopDropout();
  }
  const { norm: gradNorm, scale } = await clipByGlobalNorm(grads, ctx.maxGradNorm);
  // Each gradient released once its parameter is updated, so the largest update (last) runs with the rest gone.
  ctx.optimizer.step(grads, lr, scale, true);
  return { loss, gradNorm, tokens };
}
