// The model-independent half of the grid: for every (test set, prompt variant) cell, the task, the
// gold answers and one request per example, each with its digest for the cache key. Everything a
// user can get wrong (an unknown label, a missing field, too few demonstrations) fails here, before
// any model is loaded or anything is written.
import { createHash } from 'node:crypto';
import { UserError } from '../errors.ts';
import { DEFAULT_LABEL_TOKEN_RULE, type Example } from '../types.ts';
import {
  addSpecialTokensFor, buildFirstTokenRequests, buildFullWordRequests, buildGenerateRequests, demonstrationsFor, goldLabel, joinFor, referenceOf,
  type BosRule, type BuildOptions, type LabelTokens, type TaskPreset, type TaskSpec, type ZeroShotPrefix,
} from '../tasks/index.ts';
import { requestDigest, type EngineMode, type RequestPayload } from './cache-key.ts';
import { resolvePreset, resolveTask, type TaskChoice } from './task-option.ts';
import type { EvalTestSet } from './test-sets.ts';
import type { PromptVariant } from './variants.ts';

export interface Cell {
  index: number;
  set: EvalTestSet;
  variant: PromptVariant;
  task: TaskSpec;
  mode: EngineMode;
  examples: Example[];
  /** Gold label (classify) or reference (generate) per example. */
  golds: string[];
  payloads: RequestPayload[];
  digests: string[];
  /**
   * Everything the cell's predictions and scores depend on besides the model and the metric
   * options: the set and variant, the task, the golds, the examples as the records see them and
   * every request's digest (which holds the test set's content hash and the rendered request).
   * With the model's cache key and the metric options it is the cell's fingerprint in the store
   * (cellFingerprint), which lets an evaluation skip a cell already stored from the same inputs.
   */
  digest: string;
  /** Where the demonstrations came from, for the record; undefined at 0 shots. */
  demonstrations?: string;
}

/**
 * Bump when the predictions or metrics computed from the same answers change (cell-metrics.ts, the
 * task records), so that cells stored by an earlier version are written again from the cache.
 */
export const CELL_FORMAT = 'genstudy-evaluate-cell/1';

export interface PlanOptions extends Omit<TaskChoice, 'prompt'> {
  /** Seed for demonstrations sampled from the test set itself (when it has no demonstration pool). */
  demoSeed?: number;
  /** First-token scoring: the label's first token in context (default) or tokenised alone. */
  labelTokens?: LabelTokens;
  /** How prompts begin (BOS): the tokenizer's special tokens (default) or study B's replay. */
  bos?: BosRule;
  /** First-token scoring: right-pad every context to this many tokens and read the last padded position (study A's predecessor: 128). */
  padTo?: number;
  /** Study B's classification cells: the label token rule there (default: labelTokens). */
  studyBLabelTokens?: LabelTokens;
  /** Study B's 0-shot "<s> " under its BOS rule: as the tokenizer encodes it, or BOS alone. */
  zeroShotPrefix?: ZeroShotPrefix;
}

function withSet<T>(set: EvalTestSet, variant: PromptVariant, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UserError) {
      const v = variant.name ? `, prompt variant "${variant.name}"` : '';
      throw new UserError(`test set "${set.id}" (${set.source}${v}): ${err.message}`);
    }
    throw err;
  }
}

function goldsOf(task: TaskSpec, set: EvalTestSet): string[] {
  return set.examples.map((ex) => {
    if (task.kind === 'generate') return referenceOf(task, ex);
    if (ex.label === undefined) {
      throw new UserError(`example "${ex.id}" has no label; task "${task.name}" needs one of ${task.labels.map((l) => `"${l}"`).join(', ')}`);
    }
    // A row kept without a gold answer (study B's "-"): its gold matches no prediction.
    if (isUnlabeled(task, set, ex)) return ex.label;
    return goldLabel(task, ex);
  });
}

function isUnlabeled(task: TaskSpec, set: EvalTestSet, ex: Example): boolean {
  return task.kind === 'classify' && ex.label !== undefined && !task.labels.includes(ex.label) && (set.unlabeled?.includes(ex.label) ?? false);
}

async function buildOptions(
  task: TaskSpec, set: EvalTestSet, variant: PromptVariant, opts: PlanOptions,
): Promise<{ build: BuildOptions; from?: string }> {
  const join = joinFor(task, opts.bos ?? 'tokenizer', opts.zeroShotPrefix);
  if (variant.shots === 0) return { build: { join } };
  if (set.demonstrationPool) {
    const pool = await set.demonstrationPool();
    const demonstrations = withSet(set, variant, () => demonstrationsFor(task, pool.examples, { kind: 'first-k', k: variant.shots }, pool.name));
    return { build: { join, demonstrations }, from: `first ${variant.shots} of ${pool.name}` };
  }
  const seed = opts.demoSeed ?? 0;
  const demonstrations = withSet(set, variant,
    () => demonstrationsFor(task, set.examples, { kind: 'sampled', k: variant.shots, seed }, `test set "${set.id}"`));
  return { build: { join, demonstrations }, from: `${variant.shots} sampled per query from the test set itself (seed ${seed})` };
}

async function buildCell(index: number, set: EvalTestSet, variant: PromptVariant, opts: PlanOptions): Promise<Cell> {
  const task = withSet(set, variant, () => resolveTask({ task: opts.task, scoring: opts.scoring, prompt: variant.prompt }, set));
  const golds = withSet(set, variant, () => goldsOf(task, set));
  const { build, from } = await buildOptions(task, set, variant, opts);
  let mode: EngineMode;
  let payloads: RequestPayload[];
  withSet(set, variant, () => {
    if (task.kind === 'generate') {
      mode = 'generate';
      const addSpecialTokens = addSpecialTokensFor('generate', opts.bos ?? 'tokenizer');
      payloads = buildGenerateRequests(task, set.examples, build).map((r) => ({ mode: 'generate', prompt: r.prompt,
        maxNewTokens: r.maxNewTokens, stop: r.stop ?? [], addSpecialTokens }));
    } else if (task.scoring === 'first-token') {
      mode = 'first-token';
      const preset = resolvePreset({ task: opts.task }, set);
      const labelTokens = (preset?.study === 'B' ? opts.studyBLabelTokens : undefined) ?? opts.labelTokens ?? DEFAULT_LABEL_TOKEN_RULE;
      const addSpecialTokens = addSpecialTokensFor('classify', opts.bos ?? 'tokenizer');
      const extra = { ...(opts.padTo === undefined ? {} : { padTo: opts.padTo }),
        ...(labelTokens === 'llama2-ids' ? { fixedTokens: llama2Ids(task, preset) } : {}) };
      payloads = buildFirstTokenRequests(task, set.examples, build).map((r) => ({ mode: 'first-token', context: r.context,
        candidates: r.candidates, labelTokens, addSpecialTokens, ...extra }));
    } else {
      mode = 'full-word';
      const reqs = buildFullWordRequests(task, set.examples, build);
      const k = task.labels.length;
      payloads = set.examples.map((_, i) => ({
        mode: 'full-word', requests: reqs.slice(i * k, (i + 1) * k).map((r) => ({ context: r.context, continuation: r.continuation })),
      }));
    }
  });
  const digests = payloads!.map((p, i) => requestDigest(set.contentHash, set.examples[i].id, p));
  // The records see unlabeled rows without a label; their gold ("-") stays in `golds` and counts wrong.
  const examples = set.unlabeled ? set.examples.map((ex) => (isUnlabeled(task, set, ex) ? { ...ex, label: undefined } : ex)) : set.examples;
  const digest = createHash('sha256').update(JSON.stringify([CELL_FORMAT, set.id, set.contentHash, variant, task, golds,
    examples.map((ex) => [ex.id, ex.label ?? null]), digests])).digest('hex');
  return { index, set, variant, task, mode: mode!, examples, golds, payloads: payloads!, digests, digest, demonstrations: from };
}

/**
 * A cell's fingerprint on one model: the cell's digest, the model's cache key (weights, config and
 * tokenizer) and the options the metrics are computed with. Stored rows with an equal fingerprint
 * were computed from the same answers in the same way.
 */
export function cellFingerprint(cell: Cell, modelKey: string, metricOptions: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify([cell.digest, modelKey, metricOptions])).digest('hex');
}

/** Study B's hard-coded Llama-2 label ids of the cell's preset (study B's classify tasks), in label order. */
function llama2Ids(task: TaskSpec, preset: TaskPreset | undefined): { ids: number[]; pieces: string[] } {
  const fixed = preset?.llama2Ids;
  if (!fixed) {
    throw new UserError(`labelTokens "llama2-ids": task "${task.name}" has no hard-coded ids (study B's sentiment, paraphrase and NLI tasks have)`);
  }
  return { ids: [...fixed.ids], pieces: [...fixed.pieces] };
}

/** Every (test set, variant) cell, in test set then variant order. */
export async function planCells(
  sets: readonly EvalTestSet[], variants: readonly PromptVariant[] | ((set: EvalTestSet) => readonly PromptVariant[]), opts: PlanOptions = {},
): Promise<Cell[]> {
  const cells: Cell[] = [];
  for (const set of sets) {
    if (set.examples.length === 0) throw new UserError(`test set "${set.id}" (${set.source}) has no examples`);
    const ids = new Set<string>();
    for (const ex of set.examples) {
      if (ids.has(ex.id)) throw new UserError(`test set "${set.id}" (${set.source}): example id "${ex.id}" occurs twice; ids must be unique`);
      ids.add(ex.id);
    }
    for (const v of typeof variants === 'function' ? variants(set) : variants) cells.push(await buildCell(cells.length, set, v, opts));
  }
  return cells;
}

/** A sort length for a request: its prompt's characters (the engine re-sorts by tokens within a call). */
export function requestLength(p: RequestPayload): number {
  if (p.mode === 'first-token') return p.context.length;
  if (p.mode === 'generate') return p.prompt.length + 4 * p.maxNewTokens;
  return p.requests.reduce((m, r) => Math.max(m, r.context.length + r.continuation.length), 0);
}

/** Requests that can share one engine call: same mode, and for first-token the same candidates and tokenisation. */
export function engineGroup(p: RequestPayload): string {
  return p.mode === 'first-token'
    ? `first-token\u0000${JSON.stringify([p.candidates, p.labelTokens, p.addSpecialTokens, p.padTo ?? null, p.fixedTokens ?? null])}`
    : p.mode;
}
