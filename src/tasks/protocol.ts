// The two protocols a study can run (docs/studies.md tabulates every row against the official code):
// - 'official' replays the released code of each study, its quirks included;
// - 'corrected' is genstudy's version of the same study, where the official code did something a
//   reader would not expect (rows without a gold label counted as wrong, a random bootstrap median
//   reported as ROUGE, the same demonstrations for every training example, ...).
// A study file names one (`protocol:`) and may still override any single setting. This table is the
// one place the two are defined; config/ resolves a study's settings from it.

import { taskJoin, type JoinOptions, type TaskSpec } from './task.ts';
import { LABEL_TOKEN_RULES, type TaskKind } from '../types.ts';

export const PROTOCOLS = ['official', 'corrected'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Which token of a label word first-token scoring reads (and the classification target trains):
 * in context, tokenised alone, or study B's hard-coded Llama-2 ids (`llama2-ids`, read after the
 * prompt as given; Llama-2's tokenizer only, checked by decoding each id).
 */
export const LABEL_TOKENS = [...LABEL_TOKEN_RULES, 'llama2-ids'] as const;
export type LabelTokens = (typeof LABEL_TOKENS)[number];
/**
 * 'study-b': study B's released code: 0-shot prompts begin with the literal text "<s> "; classification
 * prompts are encoded without special tokens (so 0-shot has one BOS, k-shot none), generation prompts
 * with them (vLLM's default: 0-shot gets two BOS, k-shot one). 'tokenizer': every prompt is encoded
 * with the tokenizer's own special tokens and nothing is prepended.
 */
export const BOS_RULES = ['study-b', 'tokenizer'] as const;
export type BosRule = (typeof BOS_RULES)[number];
/** Rows whose gold label the data set drops (study B's "-"): 'wrong' keeps them and counts them wrong. */
export const UNLABELED_ROWS = ['wrong', 'drop'] as const;
export type UnlabeledRows = (typeof UNLABELED_ROWS)[number];
/** The ROUGE a generation cell reports as its headline: the bootstrap median (HF evaluate) or the per-example mean. */
export const ROUGE_AGGREGATES = ['bootstrap-mid', 'mean'] as const;
export type RougeAggregate = (typeof ROUGE_AGGREGATES)[number];
/** 'every-k-and-prompt': every run at every k of the test set's task and both prompts (evaluate_cross.py). */
export const EVALUATION_GRIDS = ['reported', 'every-k-and-prompt'] as const;
export type EvaluationGrid = (typeof EVALUATION_GRIDS)[number];
/** FTICL demonstrations: the first k rows of the in-domain few-shot file, or k sampled per training example. */
export const FTICL_DEMONSTRATIONS = ['few-shot-first', 'training-sampled'] as const;
export type FticlDemonstrations = (typeof FTICL_DEMONSTRATIONS)[number];
/** Study A: read the logits at the last real token, or at position 127 of a right-padded 128-token row (its predecessor). */
export const READING_POSITIONS = ['last-token', 'padded-128'] as const;
export type ReadingPosition = (typeof READING_POSITIONS)[number];
/**
 * How the loss of an optimiser step weighs its micro-batches' target tokens: 'step-tokens' divides
 * the summed token loss by every target token of the step (transformers >= 4.46 for a model that
 * takes num_items_in_batch), 'micro-batch-mean' averages each micro-batch's own token mean (the
 * transformers the releases ran: a token of a short micro-batch weighs more).
 */
export const LOSS_WEIGHTINGS = ['step-tokens', 'micro-batch-mean'] as const;
export type LossWeighting = (typeof LOSS_WEIGHTINGS)[number];
/**
 * Supervised training sequences longer than the limit: 'keep-target' keeps their last tokens (the
 * target survives); 'first-1024' keeps their first 1024 tokens, as study B's train.py did
 * (model_max_length 1024, truncation=True), cutting the target, or all of it, off the end.
 */
export const TRAINING_TRUNCATIONS = ['keep-target', 'first-1024'] as const;
export type TrainingTruncation = (typeof TRAINING_TRUNCATIONS)[number];
/** Study B's train.py:52: model_max_length, the length first-1024 keeps. */
export const STUDY_B_MAX_LENGTH = 1024;
/**
 * Study A's MNLI rows labelled neutral: 'drop' (the binarised task has no neutral), or 'keep-as-bug'
 * as the predecessor's MNLIDataset did (it skips SNLI's filter): trained toward token id 1 and
 * scored with gold "Yes". A replayed bug, for MNLI under study A's task only.
 */
export const STUDY_A_MNLI_NEUTRAL_RULES = ['drop', 'keep-as-bug'] as const;
export type StudyAMnliNeutral = (typeof STUDY_A_MNLI_NEUTRAL_RULES)[number];
/**
 * The every-k-and-prompt grid: 'add-run-k' adds each run's own k to every test set's k list (so a
 * run's reported cell exists everywhere), 'task-k-only' evaluates at the test set's task's k only
 * (evaluate_cross.py computed no other cell).
 */
export const GRID_RUN_SHOTS = ['add-run-k', 'task-k-only'] as const;
export type GridRunShots = (typeof GRID_RUN_SHOTS)[number];
/**
 * Study B's 0-shot prefix "<s> " under its BOS rule: 'as-tokenized' encodes the text as the model's
 * tokenizer.json does (Llama-2's today: [1, 29871, ...], BOS then a lone "▁"); 'bos-only' writes it
 * as BOS alone ([1, ...]), what a tokenizer whose "<s>" is `normalized` may have given in 2023
 * (github.com/huggingface/transformers/issues/23833). The release's tokenizer file is not known, so both protocols encode as tokenized.
 */
export const ZERO_SHOT_PREFIXES = ['as-tokenized', 'bos-only'] as const;
export type ZeroShotPrefix = (typeof ZERO_SHOT_PREFIXES)[number];

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
  /** Study B's classification cells: which label token is read (labelTokens covers every other cell). */
  studyBLabelTokens: LabelTokens;
  /** Global-norm gradient clipping of a trained method that does not set maxGradNorm (0: none). */
  maxGradNorm: number;
  lossWeighting: LossWeighting;
  /** Supervised-objective training sequences (study B's). */
  trainingTruncation: TrainingTruncation;
  studyAMnliNeutral: StudyAMnliNeutral;
  gridRunShots: GridRunShots;
  zeroShotPrefix: ZeroShotPrefix;
}

export const PROTOCOL_SETTINGS: Readonly<Record<Protocol, Readonly<ProtocolSettings>>> = {
  official: {
    labelTokens: 'in-context', bos: 'study-b', unlabeledRows: 'wrong', rouge: 'bootstrap-mid', grid: 'every-k-and-prompt',
    fticlDemonstrations: 'few-shot-first', studyAPositiveLabel: 'No', studyAReadingPosition: 'padded-128',
    // evaluate_cross.py:215-227's ids (NLI Prompt-2: after a lone "▁"); no DeepSpeed gradient_clipping
    // (ds_config.json, configs/*.toml); the 2023-24 Trainer's micro-batch mean; train.py:52,88-89;
    // NLIDataset.py:168-170; evaluate_cross.py:153-165 (docs/studies.md, rows 13-19).
    studyBLabelTokens: 'llama2-ids', maxGradNorm: 0, lossWeighting: 'micro-batch-mean', trainingTruncation: 'first-1024',
    studyAMnliNeutral: 'keep-as-bug', gridRunShots: 'task-k-only', zeroShotPrefix: 'as-tokenized',
  },
  corrected: {
    labelTokens: 'in-context', bos: 'tokenizer', unlabeledRows: 'drop', rouge: 'mean', grid: 'reported',
    fticlDemonstrations: 'training-sampled', studyAReadingPosition: 'last-token',
    // A tokenizer-independent label token; Trainer's default clipping; every target token weighs the
    // same; no example loses its target; no neutral rows in a binary task; each run's reported cell.
    studyBLabelTokens: 'in-context', maxGradNorm: 1, lossWeighting: 'step-tokens', trainingTruncation: 'keep-target',
    studyAMnliNeutral: 'drop', gridRunShots: 'add-run-k', zeroShotPrefix: 'as-tokenized',
  },
};

/** Whether a prompt is encoded with the tokenizer's special tokens under a BOS rule. */
export function addSpecialTokensFor(kind: TaskKind, bos: BosRule): boolean {
  return bos === 'tokenizer' || kind === 'generate';
}

/**
 * How a task's contexts are joined under a BOS rule: its own separator, and its zero-shot prefix
 * (study B's tasks: "<s> ") only under study B's rule.
 */
export function joinFor(task: TaskSpec, bos: BosRule, zeroShotPrefix: ZeroShotPrefix = 'as-tokenized'): JoinOptions {
  const join = taskJoin(task);
  if (bos !== 'study-b') return join;
  const prefix = task.join?.zeroShotPrefix ?? '';
  // "<s>" then the prompt: the tokenizer's own word-start marker follows BOS, with no lone "▁" between.
  return { ...join, zeroShotPrefix: zeroShotPrefix === 'bos-only' ? prefix.trimEnd() : prefix };
}
