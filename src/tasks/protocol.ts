// The two protocols a study can run (docs/studies.md tabulates every row against the official code):
// - 'official' replays the released code of each study, its quirks included;
// - 'corrected' is genstudy's version of the same study, where the official code did something a
//   reader would not expect (rows without a gold label counted as wrong, a random bootstrap median
//   reported as ROUGE, the same demonstrations for every training example, ...).
// A study file names one (`protocol:`) and may still override any single setting. The table below is
// the one place the settings and both protocols are defined; config/ derives the study file's fields
// and resolves a study's settings from it.

import { taskJoin, type JoinOptions, type TaskSpec } from './task.ts';
import { LABEL_TOKEN_RULES, type TaskKind } from '../types.ts';
import type { OptionSpec, ValueOf } from '../option-table.ts';

export const PROTOCOLS = ['official', 'corrected'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Which token of a label word first-token scoring reads (and the label-token objective trains):
 * in context, tokenised alone, or study B's hard-coded Llama-2 ids (`llama2-ids`, read after the
 * prompt as given; Llama-2's tokenizer only, checked by decoding each id).
 */
export const LABEL_TOKENS = [...LABEL_TOKEN_RULES, 'llama2-ids'] as const;
export type LabelTokens = (typeof LABEL_TOKENS)[number];

/**
 * Where a study file writes a protocol setting: under `evaluation:`, in a method (the method's own
 * value wins for its runs), or, with no key of its own, through another setting's key (`setBy`),
 * which then sets both.
 */
export type StudyPlace = 'evaluation' | 'method' | { setBy: string };

/**
 * One protocol setting, declared once: its values (an option table's kind and bounds,
 * src/option-table.ts; `help` says what it decides), its value under each protocol (undefined: the
 * setting is unset, e.g. F1 on the first label), where a study file writes it (under the setting's
 * own name), and `oldSpellings`: values a study file may still write, read as the value each names,
 * with a note on stderr naming the file. The study-file field, its type, both protocol rows and the
 * resolved setting are all derived from this entry (config/schema.ts, config/settings.ts).
 */
export type ProtocolSettingSpec = OptionSpec & {
  official: unknown; corrected: unknown; study: StudyPlace; oldSpellings?: Readonly<Record<string, string>>;
};

/** An entry's protocol values and old spellings, checked against its own values. */
type Checked<S> = { official: ValueOf<S> | undefined; corrected: ValueOf<S> | undefined; oldSpellings?: Readonly<Record<string, ValueOf<S>>> };

function protocolTable<const T extends { [K in keyof T]: ProtocolSettingSpec & Checked<T[K]> }>(table: T): T {
  return table;
}

/**
 * The protocol settings: every setting in which a study's released code differs from what genstudy
 * would do on its own (or, like zeroShotPrefix, where the release leaves a choice), named as a study
 * file names them, which is also the name the resolved settings, the trainer and the evaluation use.
 * Adding a setting is one entry here (and the code that reads it).
 */
export const PROTOCOL_SETTING_SPECS = protocolTable({
  labelTokens: { kind: 'choice', choices: LABEL_TOKENS, official: 'in-context', corrected: 'in-context', study: 'evaluation',
    help: 'first-token scoring and the label-token objective: the label\'s first token in context, or tokenised alone' },
  // evaluate_cross.py:215-227's ids (NLI Prompt-2: after a lone "▁"); a tokenizer-independent label token when corrected.
  studyBLabelTokens: { kind: 'choice', choices: LABEL_TOKENS, official: 'llama2-ids', corrected: 'in-context', study: { setBy: 'labelTokens' },
    help: 'study B\'s classification cells: the label token read (a study file\'s labelTokens sets it with the others)' },
  /*
   * 'study-b': study B's released code: 0-shot prompts begin with the literal text "<s> "; classification
   * prompts are encoded without special tokens (so 0-shot has one BOS, k-shot none), generation prompts
   * with them (vLLM's default: 0-shot gets two BOS, k-shot one). 'tokenizer': every prompt is encoded
   * with the tokenizer's own special tokens and nothing is prepended.
   */
  bos: { kind: 'choice', choices: ['study-b', 'tokenizer'], official: 'study-b', corrected: 'tokenizer', study: 'evaluation',
    help: 'study-b: study B\'s "<s> " 0-shot prefix and special-token use; tokenizer: the tokenizer\'s own BOS' },
  unlabeledRows: { kind: 'choice', choices: ['wrong', 'drop'], official: 'wrong', corrected: 'drop', study: 'evaluation',
    help: 'rows whose gold label the data set drops (study B\'s "-"): wrong: kept among the first `limit` rows and counted wrong; ' +
      'drop: skipped' },
  rouge: { kind: 'choice', choices: ['bootstrap-mid', 'mean'], official: 'bootstrap-mid', corrected: 'mean', study: 'evaluation',
    help: 'the ROUGE a generation cell reports: the bootstrap median (HF evaluate, what study B printed) or the per-example mean' },
  grid: { kind: 'choice', choices: ['reported', 'every-k-and-prompt'], official: 'every-k-and-prompt', corrected: 'reported', study: 'evaluation',
    help: 'reported: each run at its own k; every-k-and-prompt: every run at every k of each test set\'s task and both prompts ' +
      '(evaluate_cross.py)' },
  // evaluate_cross.py:153-165 computed no other cell.
  gridRunShots: { kind: 'choice', choices: ['add-run-k', 'task-k-only'], official: 'task-k-only', corrected: 'add-run-k', study: 'evaluation',
    help: 'the every-k grid: add-run-k adds each run\'s own k to every test set\'s k list (so its reported cell exists everywhere); ' +
      'task-k-only keeps the task\'s' },
  /*
   * 'as-tokenized' encodes the text as the model's tokenizer.json does (Llama-2's today: [1, 29871, ...],
   * BOS then a lone "▁"); 'bos-only' writes it as BOS alone ([1, ...]), what a tokenizer whose "<s>" is
   * `normalized` may have given in 2023 (github.com/huggingface/transformers/issues/23833). The
   * release's tokenizer file is not known, so both protocols encode as tokenized.
   */
  zeroShotPrefix: { kind: 'choice', choices: ['as-tokenized', 'bos-only'], official: 'as-tokenized', corrected: 'as-tokenized', study: 'evaluation',
    help: 'study B\'s "<s> " 0-shot prefix under its BOS rule: as-tokenized (as the tokenizer encodes the text), or bos-only ' +
      '(BOS, then the prompt)' },
  // The protocol's value is study A's (its predecessor's "No"), for study A's tasks only; a value the study file writes is every task's.
  positiveLabel: { kind: 'string', official: 'No', corrected: undefined, study: 'evaluation',
    help: 'F1\'s positive class (unset: the first label)' },
  readingPosition: { kind: 'choice', choices: ['last-token', 'padded-128'], official: 'padded-128', corrected: 'last-token', study: 'evaluation',
    help: 'study A\'s tasks: read the label logits at the last real token, or at position 127 of rows right-padded to 128 tokens ' +
      '(its predecessor), for scoring and the label-token objective alike' },
  // NLIDataset.py:168-170: the predecessor's MNLIDataset skips SNLI's neutral filter.
  studyAMnliNeutral: { kind: 'choice', choices: ['drop', 'keep-as-bug'], official: 'keep-as-bug', corrected: 'drop', study: 'evaluation',
    help: 'study A\'s MNLI neutral rows: drop (the binarised task has no neutral), or keep-as-bug as its predecessor did: trained ' +
      'toward token id 1 and scored with gold "Yes" (a replayed bug, for MNLI under study A\'s task only)' },
  // train_ptune.py:120-147: the first k rows of the in-domain few-shot file before every example.
  demonstrationPool: { kind: 'choice', choices: ['few-shot', 'training'], official: 'few-shot', corrected: 'training', study: 'method',
    help: 'FTICL demonstrations: from the training set\'s in-domain few-shot file (study B), or from the training rows' },
  demonstrationSelection: { kind: 'choice', choices: ['first', 'sampled'], official: 'first', corrected: 'sampled', study: 'method',
    help: 'FTICL demonstrations: the first k of the pool for every example (study B), or k sampled per example (seeded)' },
  // No DeepSpeed gradient_clipping in ds_config.json or configs/*.toml; transformers Trainer's default when corrected.
  maxGradNorm: { kind: 'number', min: 0, official: 0, corrected: 1, study: 'method',
    help: 'global-norm gradient clipping of a trained method (0: none)' },
  /*
   * How the loss of an optimiser step weighs its micro-batches' target tokens: 'step-tokens' divides
   * the summed token loss by every target token of the step (transformers >= 4.46 for a model that
   * takes num_items_in_batch), 'micro-batch-mean' averages each micro-batch's own token mean (the
   * transformers the releases ran: a token of a short micro-batch weighs more).
   */
  lossWeighting: { kind: 'choice', choices: ['step-tokens', 'micro-batch-mean'], official: 'micro-batch-mean', corrected: 'step-tokens',
    study: 'method', help: 'step-tokens: the step\'s summed token loss over all its target tokens; micro-batch-mean: the mean of each ' +
      'micro-batch\'s token mean (the releases\' transformers)' },
  /*
   * Supervised-objective training sequences longer than the limit: 'keep-target' keeps their last
   * tokens (the target survives); 'keep-first' their first tokens, as study B's train.py did
   * (train.py:52,88-89: model_max_length 1024, truncation=True), cutting the target, or all of it,
   * off the end. In a study the limit of keep-first is STUDY_B_MAX_LENGTH; the trainer takes its maxLength.
   */
  truncation: { kind: 'choice', choices: ['keep-target', 'keep-first'], official: 'keep-first', corrected: 'keep-target', study: 'method',
    oldSpellings: { 'first-1024': 'keep-first' },
    help: 'supervised sequences over the limit: keep-target keeps their last tokens; keep-first their first 1024 (study B\'s train.py)' },
});

export type ProtocolSettingName = keyof typeof PROTOCOL_SETTING_SPECS;
type Specs = typeof PROTOCOL_SETTING_SPECS;

/** Every protocol setting at its value: each one's type from its entry. */
export type ProtocolSettings = {
  [K in ProtocolSettingName]: ValueOf<Specs[K]> | (undefined extends Specs[K]['official'] | Specs[K]['corrected'] ? undefined : never);
};

/** The settings a study file writes in one place (evaluation or a method), by name. */
export type ProtocolSettingsAt<P extends 'evaluation' | 'method'> = { [K in ProtocolSettingName as Specs[K]['study'] extends P ? K : never]: K };

/** The protocol settings a study file writes at `place`. */
export function protocolSettingsAt<P extends 'evaluation' | 'method'>(place: P): (keyof ProtocolSettingsAt<P> & ProtocolSettingName)[] {
  return (Object.keys(PROTOCOL_SETTING_SPECS) as ProtocolSettingName[]).filter((k) => PROTOCOL_SETTING_SPECS[k].study === place) as
    (keyof ProtocolSettingsAt<P> & ProtocolSettingName)[];
}

/** Each protocol's row of the table. */
export const PROTOCOL_SETTINGS: Readonly<Record<Protocol, Readonly<ProtocolSettings>>> = Object.fromEntries(PROTOCOLS.map((p) =>
  [p, Object.fromEntries(Object.entries(PROTOCOL_SETTING_SPECS).map(([k, spec]) => [k, spec[p]]))])) as Record<Protocol, ProtocolSettings>;

export type BosRule = ProtocolSettings['bos'];
export type ZeroShotPrefix = ProtocolSettings['zeroShotPrefix'];
export type LossWeighting = ProtocolSettings['lossWeighting'];
export type Truncation = ProtocolSettings['truncation'];
/** Study B's train.py:52: model_max_length, the length keep-first keeps in a study. */
export const STUDY_B_MAX_LENGTH = 1024;

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
