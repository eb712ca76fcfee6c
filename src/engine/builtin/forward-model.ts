// What the request functions (scoring.ts, first-token.ts, generation.ts, position-logprobs.ts) and
// save.ts read of a loaded model: BuiltinModel (model.ts) has these members and calls those
// functions, so both sides import this file, not each other.
import type * as tf from '@tensorflow/tfjs-core';
import type { Arch, Family, LayerCache, StepOutputs } from './families/family.ts';
import type { Params } from './params.ts';
import type { HfTokenizer } from '../hf/tokenizer.ts';

export interface ForwardModel {
  /** The checkpoint folder the model was read from. */
  readonly dir: string;
  readonly family: Family<Arch>;
  readonly arch: Arch;
  readonly params: Params;
  readonly tokenizer: HfTokenizer;
  /** config.json as read. */
  readonly config: Record<string, unknown>;
  /** Padded tokens per forward batch (rows x longest row). */
  readonly maxBatchTokens: number;
  /** Logits computed at once when scoring. */
  readonly logitsPerChunk: number;
  /** The model's longest sequence. */
  readonly maxLength: number;
  /** Token ids that end generation. */
  readonly stopTokenIds: Set<number>;
  /** One forward step: hidden states [B, T, W] and the layers' key/value caches. Call inside tf.tidy. */
  step(ids: number[][], keyMask: number[][], from: number, past?: LayerCache[], positions?: number[][]): StepOutputs;
  /** The final hidden states [N, W] at flat indices `at` (row * T + position) of a batch from position 0. Call inside tf.tidy. */
  hiddenAt(ids: number[][], keyMask: number[][], at: readonly number[], positions?: number[][]): tf.Tensor2D;
  /** Logits [N, vocab] of hidden rows [N, W]. Call inside tf.tidy. */
  logitsOf(hidden: tf.Tensor2D): tf.Tensor2D;
  /** Runs `call`, an inference call, with the model's weights packed once on the native path. */
  inference<T>(call: () => Promise<T>): Promise<T>;
}
