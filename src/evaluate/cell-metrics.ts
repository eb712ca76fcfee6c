// From one cell's engine answers to its predictions and metrics. Classification: accuracy, binary
// F1 of the positive label (binary tasks, or when a positive label is named), macro-F1 over the
// task's labels, and acc_norm with full-word scoring. Generation: ROUGE-1/2/L/Lsum P, R and F
// (rouge-score semantics; "_stem" in the name when the Porter stemmer was on) as the mean over
// examples, and the F of the HF rouge metric's bootstrap aggregate ("<type>_mid_f": the median of
// 1000 resampled means, seeded; what study B reported), corpus BLEU with sacreBLEU's defaults
// ("bleu", 0-100), exact match, and the share of empty predictions, which score 0 rather than fail.
import { UserError } from '../errors.ts';
import type { ScoreResult } from '../types.ts';
import { accuracy, binaryF1, bootstrapRouge, corpusBleu, exactMatch, macroF1, meanRougeScores, ROUGE_TYPES,
  type RougeScorer } from '../metrics/index.ts';
import { firstTokenRecords, fullWordRecords, generationRecords, type ClassifyTaskSpec } from '../tasks/index.ts';
import type { Cell } from './plan.ts';

export interface CellPrediction { exampleId: string; prediction: string; gold: string; detail: Record<string, unknown> }
export interface CellOutcome {
  predictions: CellPrediction[];
  metrics: Record<string, number>;
  /** Notes for the user (e.g. empty generations). */
  notes: string[];
}

export interface MetricOptions {
  positiveLabel?: string;
  rouge: RougeScorer;
  rougeStemmer: boolean;
  /** np.random.seed of the ROUGE bootstrap aggregate. Default 0. */
  bootstrapSeed?: number;
}

/** The positive label binary F1 uses for a task, or undefined when the task has none. */
export function positiveLabelOf(task: ClassifyTaskSpec, wanted: string | undefined): string | undefined {
  if (wanted !== undefined) {
    if (!task.labels.includes(wanted)) {
      throw new UserError(`--positive-label ${wanted}: not a label of task "${task.name}" (${task.labels.map((l) => `"${l}"`).join(', ')})`);
    }
    return wanted;
  }
  return task.labels.length === 2 ? task.labels[0] : undefined;
}

function classifyOutcome(cell: Cell, task: ClassifyTaskSpec, answers: unknown[], opts: MetricOptions): CellOutcome {
  const records = task.scoring === 'first-token'
    ? firstTokenRecords(task, cell.examples, answers as number[][])
    : fullWordRecords(task, cell.examples, (answers as ScoreResult[][]).flat());
  const predictions = records.map((r, i) => {
    const detail: Record<string, unknown> = { scoring: r.scoring, logprobs: r.logprobs };
    if (r.predictionNorm !== undefined) detail.predictionNorm = r.predictionNorm;
    return { exampleId: r.id, prediction: r.prediction, gold: cell.golds[i], detail };
  });
  const preds = records.map((r) => r.prediction);
  const metrics: Record<string, number> = { accuracy: accuracy(preds, cell.golds) };
  const positive = positiveLabelOf(task, opts.positiveLabel);
  if (positive !== undefined) metrics.f1 = binaryF1(preds, cell.golds, positive);
  metrics.macro_f1 = macroF1(preds, cell.golds, task.labels);
  if (task.scoring === 'full-word') metrics.acc_norm = accuracy(records.map((r) => r.predictionNorm!), cell.golds);
  return { predictions, metrics, notes: [] };
}

function generateOutcome(cell: Cell, answers: unknown[], opts: MetricOptions): CellOutcome {
  if (cell.task.kind !== 'generate') throw new Error('internal: generate outcome for a classify task');
  const texts = answers.map((a, i) => {
    if (typeof a !== 'string') throw new Error(`internal: answer for example "${cell.examples[i].id}" is not text`);
    return a;
  });
  const records = generationRecords(cell.task, cell.examples, texts);
  const scores = records.map((r, i) => opts.rouge.score(r.prediction, cell.golds[i]));
  const predictions = records.map((r, i) => ({
    exampleId: r.id, prediction: r.prediction, gold: cell.golds[i],
    detail: { raw: r.raw, rougeL_f: scores[i].rougeL.f },
  }));
  const mean = meanRougeScores(scores);
  const boot = bootstrapRouge(scores, { seed: opts.bootstrapSeed ?? 0 });
  const suffix = opts.rougeStemmer ? '_stem' : '';
  const metrics: Record<string, number> = {};
  for (const t of ROUGE_TYPES) {
    metrics[`${t}${suffix}_f`] = mean[t].f;
    metrics[`${t}${suffix}_p`] = mean[t].p;
    metrics[`${t}${suffix}_r`] = mean[t].r;
    metrics[`${t}${suffix}_mid_f`] = boot[t].mid.f;
  }
  const preds = records.map((r) => r.prediction);
  metrics.bleu = corpusBleu(preds, cell.golds).score;
  metrics.exact_match = exactMatch(preds, cell.golds);
  const empty = preds.filter((p) => p.trim() === '').length;
  metrics.empty_rate = empty / preds.length;
  const notes = empty > 0 ? [`${empty} of ${preds.length} generations are empty after postprocessing; they score 0`] : [];
  return { predictions, metrics, notes };
}

/** Predictions and metrics of one cell; `answers` holds the engine's answer per example, in order. */
export function cellOutcome(cell: Cell, answers: unknown[], opts: MetricOptions): CellOutcome {
  if (answers.length !== cell.examples.length) throw new Error(`internal: ${answers.length} answers for ${cell.examples.length} examples`);
  return cell.task.kind === 'classify' ? classifyOutcome(cell, cell.task, answers, opts) : generateOutcome(cell, answers, opts);
}
