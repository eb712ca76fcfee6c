// One optimiser step: forward and backward over each micro-batch (gradients summed; the loss is
// normalised by the step's target tokens, see loss.ts), global-norm clipping, the AdamW update.
import * as tf from '@tensorflow/tfjs-core';
import { trainingDropout } from '../engine/builtin/blocks.ts';
import type { LoraAdapters } from '../engine/builtin/lora.ts';
import type { BuiltinModel } from '../engine/builtin/model.ts';
import { seededRandom } from '../seeded-random.ts';
import type { AdamW } from './adamw.ts';
import { clipByGlobalNorm } from './clip.ts';
import { inputTokens, microBatchLoss } from './loss.ts';
import type { TrainSequence } from './sequences.ts';

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
}

export interface StepResult { loss: number; gradNorm: number; tokens: number }

export async function optimiserStep(ctx: StepContext, batches: readonly (readonly TrainSequence[])[], step: number, lr: number): Promise<StepResult> {
  const normalizer = batches.reduce((n, b) => n + b.reduce((k, s) => k + s.targets.length, 0), 0);
  const vars = [...ctx.trainable.values()];
  const byVariable = new Map([...ctx.trainable].map(([name, v]) => [v.name, name]));
  const grads = new Map<string, tf.Tensor>();
  let loss = 0;
  let tokens = 0;
  try {
    for (let j = 0; j < batches.length; j++) {
      ctx.adapters?.attach(seededRandom(ctx.seed, 'dropout', step, j).int(2 ** 31));
      if (ctx.modelDropout) {
        trainingDropout.seed = seededRandom(ctx.seed, 'model-dropout', step, j).int(2 ** 31);
        trainingDropout.calls = 0;
      }
      const { value, grads: g } = tf.variableGrads(() => microBatchLoss(ctx.model, batches[j], normalizer), vars);
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
      tokens += inputTokens(batches[j]);
    }
  } finally {
    ctx.adapters?.attach(undefined);
    trainingDropout.seed = undefined;
  }
  const gradNorm = await clipByGlobalNorm(grads, ctx.maxGradNorm);
  ctx.optimizer.step(grads, lr);
  for (const g of grads.values()) g.dispose();
  return { loss, gradNorm, tokens };
}
