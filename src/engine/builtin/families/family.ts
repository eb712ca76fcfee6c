// What a model family provides: how to read its config.json, which tensors it expects (and how each
// is initialised from scratch), its forward pass, its LoRA defaults and, where it can be trained from
// scratch, its tiny config. One file per family (gpt2.ts, llama.ts, ...); registry.ts lists them once
// and everything outside engine/ that names a family reads that list (test/design/families.test.ts).
import type * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../../../errors.ts';
import type { Params, ParamSpec } from '../params.ts';
import type { TrainingContext } from '../training-context.ts';

/** What every family's parsed config has; families add their own fields. */
export interface Arch {
  modelType: string;
  vocabSize: number;
  layers: number;
  /** Learned position tables bound the sequence length; rotary models take the config's hint. */
  maxPositions: number;
  /** Hidden-state width at the output (before the lm head). */
  outputWidth: number;
  /** Dropout rates the model applies in training (config.json), used only while the trainer has started dropout (training-context.ts). */
  dropout?: { embd?: number; attn?: number; resid?: number };
}

/** Key/value tensors of one layer for the positions seen so far: [batch, kvHeads, seen, headDim]. */
export interface LayerCache { k: tf.Tensor4D; v: tf.Tensor4D }

export interface StepInputs {
  /** Token ids [B, T] (int32). */
  ids: tf.Tensor2D;
  /** Position of each token, counted from the row's first real token (data, not a tensor). */
  positions: number[][];
  /** Additive attention bias [B, 1, T, past + T]: 0 where attending is allowed, -1e9 elsewhere. */
  mask: tf.Tensor;
  /** Keys/values of earlier positions, one per layer. */
  past?: LayerCache[];
  /**
   * Each row's real length when the rows are right-padded, start at position 0 and have no past (as
   * in scoring): attention may then mask by length instead of reading `mask`.
   */
  lengths?: number[];
  /** The model's adapters and dropout (training-context.ts); blocks.linear, attention and dropout read it. */
  training?: TrainingContext;
  /**
   * Flat indices (row * T + position) of the only positions whose final hidden states are read (the
   * scored positions). The last layer then runs what follows its attention (which needs every
   * position's keys and values) on those rows alone, as everything after it is row by row, and
   * `hidden` is [1, at.length, W], the rows in this order (blocks.ts afterAttention).
   */
  at?: readonly number[];
}

export interface StepOutputs {
  /** Final hidden states [B, T, outputWidth] ([1, at.length, outputWidth] with StepInputs.at). */
  hidden: tf.Tensor3D;
  /** Keys/values of past and new positions, one per layer. */
  cache: LayerCache[];
}

/**
 * The shape of a model trained from scratch (`genstudy train --init`, a study model's `init`), every
 * field given (train/init.ts fills in the defaults); a family without key-value heads or dropout of
 * its own ignores those fields.
 */
export interface ScratchShape {
  layers: number; hidden: number; heads: number; kvHeads: number; positions: number;
  /** The model's dropout rates in training (config.json's), or none when undefined. */
  dropout?: number;
}

export interface Family<A extends Arch = Arch> {
  /** config.json `model_type` values this file implements. */
  modelTypes: string[];
  /** The family's name in help text (e.g. "GPT-2"). */
  label: string;
  /**
   * The modules LoRA adapts when no target modules are named (PEFT's target_modules): the attention
   * projections, as study A adapted q/k/v/o.
   */
  loraTargets: readonly string[];
  /**
   * The config.json fields that set the model's size, in the order a message names them (after
   * model_type and vocab_size) when a model to initialise is too large to allocate.
   */
  sizeFields: readonly string[];
  /**
   * A tiny config.json to train from scratch (fields as transformers writes them), with the
   * vocabulary of the tokenizer it is trained with; absent where the family is not offered for it.
   * Its weights follow the ParamSpecs' `norm` and `residual` (train/init.ts).
   */
  scratchConfig?(vocabSize: number, shape: ScratchShape): Record<string, unknown>;
  parseConfig(cfg: Record<string, unknown>, file: string): A;
  params(arch: A): ParamSpec[];
  /** Other names under which a checkpoint may store a parameter (e.g. without a "transformer." prefix). */
  aliases?(name: string): string[];
  forward(arch: A, p: Params, x: StepInputs): StepOutputs;
  /** Logits [N, vocabSize] of hidden rows [N, outputWidth]. */
  logits(arch: A, p: Params, hidden: tf.Tensor2D): tf.Tensor2D;
  /**
   * The position id transformers gives a padding token at index `index` of a right-padded row when
   * no position ids are passed (study A's predecessor read its logits at such a token). Default:
   * `index` (positions count every index). OPT derives positions from the attention mask instead.
   */
  padPosition?(index: number): number;
}

/** A family that can be initialised from scratch (it has a scratchConfig). */
export type ScratchFamily<A extends Arch = Arch> = Family<A> & Required<Pick<Family<A>, 'scratchConfig'>>;

/** Reads a numeric field of config.json; `fallback` is the transformers config class default. */
export function num(cfg: Record<string, unknown>, key: string, file: string, fallback?: number): number {
  const v = cfg[key];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new UserError(`${file}: missing field "${key}" (expected a number)`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new UserError(`${file}: field "${key}" is ${JSON.stringify(v)}; expected a number`);
  return v;
}

export function bool(cfg: Record<string, unknown>, key: string, file: string, fallback: boolean): boolean {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw new UserError(`${file}: field "${key}" is ${JSON.stringify(v)}; expected true or false`);
  return v;
}

export function str(cfg: Record<string, unknown>, key: string, file: string, fallback: string): string {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') throw new UserError(`${file}: field "${key}" is ${JSON.stringify(v)}; expected a string`);
  return v;
}
