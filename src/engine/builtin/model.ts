// The built-in LanguageModel: a family's forward pass over loaded parameters, plus the three request
// types (scoring.ts, first-token.ts, generation.ts).
import * as tf from '@tensorflow/tfjs-core';
import type { FirstTokenOptions, GenerateRequest, LanguageModel, ScoreRequest, ScoreResult } from '../../types.ts';
import { causalMask, pad, positionsFromMask } from './batching.ts';
import type { Arch, Family, LayerCache, StepInputs, StepOutputs } from './families/family.ts';
import { firstTokenLogprobs } from './first-token.ts';
import { generate } from './generation.ts';
import type { ForwardModel } from './forward-model.ts';
import type { Params } from './params.ts';
import { saveModel } from './save.ts';
import { score } from './scoring.ts';
import { TrainingContext } from './training-context.ts';
import { withPackedWeights } from './native/packed-weights.ts';
import type { HfTokenizer } from '../hf/tokenizer.ts';

export interface EngineOptions {
  /** Padded tokens per forward batch (rows x longest row); on wasm, speed is flat from 512 to 4096, memory is not. */
  maxBatchTokens?: number;
  /** Logits computed at once when scoring (default 16M floats, 64 MB): bounds memory for large vocabularies. */
  logitsPerChunk?: number;
  /** Load tokenizer.json / tokenizer_config.json from here instead of the model folder. */
  tokenizerDir?: string;
}

export class BuiltinModel implements LanguageModel, ForwardModel {
  maxBatchTokens: number;
  logitsPerChunk: number;
  /** This model's adapters and dropout: its own, so that another model in the process cannot change its forward pass. */
  readonly training = new TrainingContext();

  constructor(
    readonly id: string,
    readonly dir: string,
    readonly family: Family<Arch>,
    readonly arch: Arch,
    readonly params: Params,
    readonly tokenizer: HfTokenizer,
    /** config.json as read, written back unchanged on save. */
    readonly config: Record<string, unknown>,
    opts: EngineOptions = {},
    /** generation_config.json when the folder has one. */
    readonly generationConfig?: Record<string, unknown>,
  ) {
    // Throughput on wasm is flat from 512 to 4096 tokens per batch (bench/engine.ts); memory is not.
    this.maxBatchTokens = opts.maxBatchTokens ?? 1024;
    this.logitsPerChunk = opts.logitsPerChunk ?? 1 << 24;
  }

  /**
   * Token ids that end generation: the tokenizer's EOS and every eos_token_id of config.json and
   * generation_config.json (a number or a list, e.g. Llama 3's end-of-turn tokens), as transformers'
   * generate stops on.
   */
  get stopTokenIds(): Set<number> {
    const ids = new Set<number>();
    if (this.tokenizer.eosTokenId !== undefined) ids.add(this.tokenizer.eosTokenId);
    const add = (v: unknown) => {
      for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'number') ids.add(x);
    };
    add(this.config.eos_token_id);
    add(this.generationConfig?.eos_token_id);
    return ids;
  }

  /** The model's longest sequence (learned position tables; the config's hint for rotary models). */
  get maxLength(): number {
    return this.arch.maxPositions;
  }

  /**
   * One forward step: hidden states [B, T, W] and the layers' key/value caches. Call inside tf.tidy.
   * Positions count each row's real tokens unless given.
   */
  step(ids: number[][], keyMask: number[][], from: number, past?: LayerCache[], positions?: number[][]): StepOutputs {
    return this.family.forward(this.arch, this.params, this.stepInputs(ids, keyMask, from, past, positions));
  }

  /**
   * The final hidden states [N, W] at flat indices `at` (row * T + position) of a batch from position
   * 0, the last layer past its attention computed at those rows only (StepInputs.at). Call inside tf.tidy.
   */
  hiddenAt(ids: number[][], keyMask: number[][], at: readonly number[], positions?: number[][]): tf.Tensor2D {
    // Without layers there is no last layer to prune: the rows are read from the embeddings.
    const pruned = this.arch.layers > 0;
    const inputs = { ...this.stepInputs(ids, keyMask, 0, undefined, positions), at: pruned ? at : undefined };
    const { hidden } = this.family.forward(this.arch, this.params, inputs);
    const rows = tf.reshape(hidden, [-1, hidden.shape[2]]) as tf.Tensor2D;
    return pruned ? rows : tf.gather(rows, tf.tensor1d([...at], 'int32'));
  }

  private stepInputs(ids: number[][], keyMask: number[][], from: number, past?: LayerCache[], positions?: number[][]): StepInputs {
    const t = ids[0].length;
    return {
      ids: tf.tensor2d(ids, undefined, 'int32'),
      positions: positions ?? positionsFromMask(keyMask, from, t),
      mask: causalMask(keyMask, from, t),
      past,
      lengths: past || positions || from !== 0 ? undefined : rightPaddedLengths(keyMask),
      training: this.training,
    };
  }

  /** Logits [N, vocab] of hidden rows [N, W]. Call inside tf.tidy. */
  logitsOf(hidden: tf.Tensor2D): tf.Tensor2D {
    return this.family.logits(this.arch, this.params, hidden);
  }

  /**
   * Runs `call`, an inference call (scoring, generation, logits): on the native path its products
   * take this model's weights packed once (native/packed-weights.ts), not packed again by each.
   */
  inference<T>(call: () => Promise<T>): Promise<T> {
    return withPackedWeights(this.params.tensors.values(), call);
  }

  /** Full logits of each sequence (one forward per call, right-padded): row i is [len_i x vocab]. */
  logits(rows: number[][]): Promise<Float32Array[]> {
    return this.inference(() => this.fullLogits(rows));
  }

  private async fullLogits(rows: number[][]): Promise<Float32Array[]> {
    const { ids, keyMask, width } = pad(rows, 'right');
    const out = tf.tidy(() => {
      const { hidden } = this.step(ids, keyMask, 0);
      return this.logitsOf(tf.reshape(hidden, [-1, hidden.shape[2]]) as tf.Tensor2D);
    });
    const data = (await out.data()) as Float32Array;
    out.dispose();
    const v = this.arch.vocabSize;
    return rows.map((r, i) => data.slice(i * width * v, (i * width + r.length) * v));
  }

  score(reqs: ScoreRequest[]): Promise<ScoreResult[]> {
    return score(this, reqs);
  }

  firstTokenLogprobs(contexts: string[], candidates: string[], opts?: FirstTokenOptions): Promise<number[][]> {
    return firstTokenLogprobs(this, contexts, candidates, opts);
  }

  generate(reqs: GenerateRequest[]): Promise<string[]> {
    return generate(this, reqs);
  }

  /** Writes the model as a Hugging Face folder (see save.ts). */
  save(dir: string): Promise<void> {
    return saveModel(this, dir);
  }

  dispose(): void {
    this.params.dispose();
  }
}

/** Each row's length when every row is its real tokens followed by padding only; else undefined. */
function rightPaddedLengths(keyMask: number[][]): number[] | undefined {
  const lengths: number[] = [];
  for (const row of keyMask) {
    const n = row.indexOf(0) === -1 ? row.length : row.indexOf(0);
    if (n === 0 || row.slice(n).some((m) => m !== 0)) return undefined;
    lengths.push(n);
  }
  return lengths;
}
