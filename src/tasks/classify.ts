// The classify task: requests for an engine, and the engine's answers turned into predictions.
//
// Two scoring modes (docs/studies.md, "Protocol details that decide results"; docs/evaluate.md):
// - first-token (both papers): one request per example, { context, candidates }, candidates in
//   the task's label order. The engine returns, per example, the log-softmax at the last context
//   position read at each candidate's first token; the prediction is the argmax over labels.
//   The candidates are the label continuations (targetDelimiter + verbalizer word) exactly, so
//   the engine sees " Yes" for study A and "positive" for study B; it picks each one's first token
//   in context by default (encode(context + label) after encode(context), lm-evaluation-harness's
//   split: "pos" after "### Sentiment:" with Llama-2, the id study B hard-coded), or the label
//   tokenised alone (engine/hf/requests.ts, encodeFirstToken).
// - full-word (lm-evaluation-harness multiple_choice): one { context, continuation } request per
//   (example, label), example-major. acc = argmax of the summed log-probabilities; acc_norm =
//   argmax of logprob / character length of the label word without leading whitespace (lm-eval
//   divides by len(choice), the choice without target_delimiter; a task may write that space in
//   the delimiter, " " + "Yes", or in the word, "" + " Yes", and both give lm-eval's acc_norm).
// Ties go to the first label in order, as numpy's argmax does.
import { UserError } from '../errors.ts';
import type { Example, ScoreRequest, ScoreResult } from '../types.ts';
import {
  buildContext, goldLabel, labelContinuation, taskJoin, validateClassifyTask,
  type ClassifyTaskSpec, type JoinOptions, type ScoringMode,
} from './task.ts';

/** Picks the demonstrations for one query (see demonstrations.ts); none when absent. */
export type DemonstrationsFor = (query: Example) => readonly Example[];

export interface BuildOptions {
  demonstrations?: DemonstrationsFor;
  join?: JoinOptions;
}

export interface FirstTokenRequest { exampleId: string; context: string; candidates: string[] }
export interface FullWordRequest extends ScoreRequest { exampleId: string; label: string }

export interface ClassifyRecord {
  id: string;
  scoring: ScoringMode;
  /** Undefined when the example carries no label. */
  gold?: string;
  prediction: string;
  correct?: boolean;
  /** Per label: the first-token log-probability, or the full word's summed log-probability. */
  logprobs: Record<string, number>;
  /** full-word only: the acc_norm prediction (logprob / character length of the label word). */
  predictionNorm?: string;
  correctNorm?: boolean;
}

function contextFor(task: ClassifyTaskSpec, ex: Example, opts: BuildOptions): string {
  return buildContext(task, ex, opts.demonstrations?.(ex) ?? [], opts.join ?? taskJoin(task));
}

export function buildFirstTokenRequests(task: ClassifyTaskSpec, examples: readonly Example[], opts: BuildOptions = {}): FirstTokenRequest[] {
  validateClassifyTask(task);
  const candidates = task.labels.map((l) => labelContinuation(task, l));
  return examples.map((ex) => ({ exampleId: ex.id, context: contextFor(task, ex, opts), candidates: [...candidates] }));
}

export function buildFullWordRequests(task: ClassifyTaskSpec, examples: readonly Example[], opts: BuildOptions = {}): FullWordRequest[] {
  validateClassifyTask(task);
  const out: FullWordRequest[] = [];
  for (const ex of examples) {
    const context = contextFor(task, ex, opts);
    for (const label of task.labels) out.push({ exampleId: ex.id, label, context, continuation: labelContinuation(task, label) });
  }
  return out;
}

/** Index of the largest value; the first one on ties; NaN never wins. */
export function argmax(values: readonly number[]): number {
  let best = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) continue;
    if (best < 0 || v > values[best]) best = i;
  }
  if (best < 0) throw new UserError('argmax: every score is NaN');
  return best;
}

function goldOf(task: ClassifyTaskSpec, ex: Example): string | undefined {
  return ex.label === undefined ? undefined : goldLabel(task, ex);
}

/** Joins first-token answers (one row per example, one column per label in order) with the examples. */
export function firstTokenRecords(task: ClassifyTaskSpec, examples: readonly Example[], logprobs: readonly (readonly number[])[]): ClassifyRecord[] {
  if (logprobs.length !== examples.length) {
    throw new UserError(`task "${task.name}": got ${logprobs.length} first-token answers for ${examples.length} examples`);
  }
  return examples.map((ex, i) => {
    const row = logprobs[i];
    if (row.length !== task.labels.length) {
      throw new UserError(
        `task "${task.name}": answer for example "${ex.id}" has ${row.length} scores, expected ${task.labels.length} (one per label)`);
    }
    const prediction = task.labels[argmax(row)];
    const gold = goldOf(task, ex);
    const rec: ClassifyRecord = { id: ex.id, scoring: 'first-token', prediction,
      logprobs: Object.fromEntries(task.labels.map((l, j) => [l, row[j]])) };
    if (gold !== undefined) { rec.gold = gold; rec.correct = gold === prediction; }
    return rec;
  });
}

/**
 * acc_norm's divisor for a label word: its characters without leading whitespace, as lm-eval's
 * len(choice) when the space is its target_delimiter (at least 1, so a blank word divides by 1).
 */
export function normLength(word: string): number {
  return Math.max(1, word.trimStart().length);
}

/** Joins full-word answers (example-major, label-minor, as buildFullWordRequests ordered them) with the examples. */
export function fullWordRecords(task: ClassifyTaskSpec, examples: readonly Example[], results: readonly ScoreResult[]): ClassifyRecord[] {
  const k = task.labels.length;
  if (results.length !== examples.length * k) {
    throw new UserError(`task "${task.name}": got ${results.length} loglikelihood answers, expected ${examples.length} examples x ${k} ` +
      `labels = ${examples.length * k}`);
  }
  const lengths = task.labels.map((l) => normLength(task.verbalizer[l]));
  return examples.map((ex, i) => {
    const lls = task.labels.map((_, j) => results[i * k + j].logprob);
    const prediction = task.labels[argmax(lls)];
    const predictionNorm = task.labels[argmax(lls.map((v, j) => v / lengths[j]))];
    const gold = goldOf(task, ex);
    const rec: ClassifyRecord = {
      id: ex.id, scoring: 'full-word', prediction, predictionNorm,
      logprobs: Object.fromEntries(task.labels.map((l, j) => [l, lls[j]])),
    };
    if (gold !== undefined) { rec.gold = gold; rec.correct = gold === prediction; rec.correctNorm = gold === predictionNorm; }
    return rec;
  });
}
