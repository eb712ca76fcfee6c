// The two protocols a study can run (docs/studies.md tabulates every row against the official code):
// - 'official' replays the released code of each study, its quirks included;
// - 'corrected' is genstudy's version of the same study, where the official code did something a
//   reader would not expect (rows without a gold label counted as wrong, a random bootstrap median
//   reported as ROUGE, the same demonstrations for every training example, ...).
// A study file names one (`protocol:`) and may still override any single setting. This table is the
// one place the two are defined; config/ resolves a study's settings from it.

import { taskJoin, type JoinOptions, type TaskSpec } from './task.ts';

export const PROTOCOLS = ['official', 'corrected'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Which token of a label word first-token scoring reads (and the classification target trains):
 * in context, tokenised alone, or study B's hard-coded Llama-2 ids (`llama2-ids`, read after the
 * prompt as given; Llama-2's tokenizer only, checked by decoding each id).
 */
export type LabelTokens = 'in-context' | 'standalone' | 'llama2-ids';
/**
 * 'study-b': study B's released code: 0-shot prompts begin with the literal text "<s> "; classification
 * prompts are encoded without special tokens (so 0-shot has one BOS, k-shot none), generation prompts
 * with them (vLLM's default: 0-shot gets two BOS, k-shot one). 'tokenizer': every prompt is encoded
 * with the tokenizer's own special tokens and nothing is prepended.
 */
export type BosRule = 'study-b' | 'tokenizer';
/** Rows whose gold label the data set drops (study B's "-"): 'wrong' keeps them and counts them wrong. */
export type UnlabeledRows = 'wrong' | 'drop';
/** The ROUGE a generation cell reports as its headline: the bootstrap median (HF evaluate) or the per-example mean. */
export type RougeAggregate = 'bootstrap-mid' | 'mean';
/** 'every-k-and-prompt': every run at every k of the test set's task and both prompts (evaluate_cross.py). */
export type EvaluationGrid = 'reported' | 'every-k-and-prompt';
/** FTICL demonstrations: the first k rows of the in-domain few-shot file, or k sampled per training example. */
export type FticlDemonstrations = 'few-shot-first' | 'training-sampled';
/** Study A: read the logits at the last real token, or at position 127 of a right-padded 128-token row (its predecessor). */
export type ReadingPosition = 'last-token' | 'padded-128';

export interface ProtocolSettings {
  labelTokens: LabelTokens;
  bos: BosRule;
  unlabeledRows: UnlabeledRows;
  rouge: RougeAggregate;
  grid: EvaluationGrid;
  fticlDemonstrations: FticlDemonstrations;
  /** Study A's F1 positive class (undefined: the first label, "Yes"). */
  studyAPositiveLabel?: string;
  /** Study A's tasks only: where the label logits are read. */
  studyAReadingPosition: ReadingPosition;
}

export const PROTOCOL_SETTINGS: Readonly<Record<Protocol, Readonly<ProtocolSettings>>> = {
  official: {
    labelTokens: 'in-context', bos: 'study-b', unlabeledRows: 'wrong', rouge: 'bootstrap-mid', grid: 'every-k-and-prompt',
    fticlDemonstrations: 'few-shot-first', studyAPositiveLabel: 'No', studyAReadingPosition: 'padded-128',
  },
  corrected: {
    labelTokens: 'in-context', bos: 'tokenizer', unlabeledRows: 'drop', rouge: 'mean', grid: 'reported',
    fticlDemonstrations: 'training-sampled', studyAReadingPosition: 'last-token',
  },
};

/** Whether a prompt is encoded with the tokenizer's special tokens under a BOS rule. */
export function addSpecialTokensFor(kind: 'classify' | 'generate', bos: BosRule): boolean {
  return bos === 'tokenizer' || kind === 'generate';
}

/**
 * How a task's contexts are joined under a BOS rule: its own separator, and its zero-shot prefix
 * (study B's tasks: "<s> ") only under study B's rule.
 */
export function joinFor(task: TaskSpec, bos: BosRule): JoinOptions {
  const join = taskJoin(task);
  return bos === 'study-b' ? { ...join, zeroShotPrefix: task.join?.zeroShotPrefix ?? '' } : join;
}
