// Trains one run on the backend asked for: the built-in trainer, or transformers' Trainer in child
// processes (train/hf/). A study's run evaluates its checkpoints as they are written (the built-in
// trainer calls back after each checkpoint; beside an hf launch a watcher evaluates each checkpoint-N
// it completes); `genstudy train` (train-request.ts) trains without evaluating. Both call trainRun.
import fs from 'node:fs';
import { discoverCheckpoints, type GridOptions } from '../evaluate/index.ts';
import { train, type TrainOptions, type TrainResult } from '../train/index.ts';
import { trainHf, type HfTrainResult, type LaunchOptions } from '../train/hf/index.ts';
import { watchRun } from './watch.ts';
import { describeMissing, reconcileRun } from './checkpoint-reconcile.ts';

/** Polling pause of the watcher beside an hf launch: checkpoints come minutes apart at real scale. */
const HF_WATCH_INTERVAL_MS = 2000;

/** The backend a run trains on, with what the hf backend's launch needs (a study's `hf:` section, or `train`'s hf flags). */
export type TrainBackend =
  | { kind: 'builtin' }
  | {
    kind: 'hf'; launch: LaunchOptions;
    /** More TrainingArguments (genstudy's own settings are refused). */
    trainingArguments?: Record<string, unknown>;
    /** Allow save_total_limit (the Trainer deletes older checkpoints). */
    acceptCheckpointGaps?: boolean;
    /** The launch's output, chunk by chunk (default: the launch writes to this process's stderr). */
    onOutput?: (chunk: string) => void;
  };

/** A study run's evaluation along the way: checkpoints come from options.outDir, on the base model options.model. */
export interface RunEvaluation {
  /** What every evaluation of the run shares (the watcher's grid too). */
  gridOptions: Omit<GridOptions, 'checkpoints'>;
  evaluate: (checkpoints: { step: number; dir: string; base?: string; tokenizer?: string }[]) => Promise<void>;
  log: (line: string) => void;
  /** Told the answers each watcher round computed and took from the cache. */
  countAnswers: (computed: number, cached: number) => void;
}

/** What the trainer returned, and the optimiser steps this invocation took (not those of a run it resumed). */
export type TrainRunResult =
  | { backend: 'builtin'; trained: TrainResult; stepsTaken: number }
  | { backend: 'hf'; trained: HfTrainResult; stepsTaken: number };

/** Trains the run on `backend`; with `evaluation`, evaluates its checkpoints as they are written. */
export async function trainRun(options: TrainOptions, backend: TrainBackend, evaluation?: RunEvaluation): Promise<TrainRunResult> {
  if (backend.kind === 'hf') return trainOnHf(options, backend, evaluation);
  const trained = await train(evaluation === undefined ? options : {
    ...options,
    onCheckpoint: async ({ step }) => {
      const found = discoverCheckpoints(options.outDir, { baseModel: options.model }).checkpoints.filter((cp) => cp.step === step);
      if (found.length) await evaluation.evaluate(found);
    },
  });
  return { backend: 'builtin', trained, stepsTaken: trained.steps - (trained.resumedFrom ?? 0) };
}

/** The last checkpoint-N already in `dir` (0 when none): where a relaunched Trainer resumes. */
function lastCheckpointStep(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return Math.max(0, ...fs.readdirSync(dir).map((n) => Number(/^checkpoint-(\d+)$/.exec(n)?.[1] ?? 0)));
}

/**
 * A run on the hf backend. Evaluated along the way: step 0 is the base model (the Trainer saves no
 * checkpoint before its first step); the launch trains in child processes while the watcher
 * evaluates each checkpoint-N it completes; the Trainer's log_history goes into the store.
 */
async function trainOnHf(options: TrainOptions, backend: Extract<TrainBackend, { kind: 'hf' }>,
  evaluation: RunEvaluation | undefined): Promise<TrainRunResult> {
  const { progress: _progress, onCheckpoint: _cp, onStep: _step, ...hfOptions } = options;
  const hf = { ...hfOptions, trainingArguments: backend.trainingArguments, acceptCheckpointGaps: backend.acceptCheckpointGaps === true };
  const io = backend.onOutput ? { onOutput: backend.onOutput } : {};
  const before = lastCheckpointStep(options.outDir);
  if (evaluation === undefined) {
    const trained = await trainHf(hf, backend.launch, io);
    return { backend: 'hf', trained, stepsTaken: trained.prepared.totalSteps - before };
  }
  const c = evaluation;
  if (options.checkpoints?.atStart ?? true) await c.evaluate([{ step: 0, dir: options.model }]);
  fs.mkdirSync(options.outDir, { recursive: true });
  const controller = new AbortController();
  // A watcher that fails is reported and training goes on: the checkpoints it missed are evaluated
  // when training ends (the caller's discoverCheckpoints), never an unhandled rejection mid-run.
  const watching = watchRun({
    ...c.gridOptions, runDir: options.outDir, baseModel: options.model, tokenizerDir: options.model,
    intervalMs: HF_WATCH_INTERVAL_MS, signal: controller.signal, log: (line) => c.log(`genstudy: watch: ${line}`),
    onRound: (r) => { if (r.summary) c.countAnswers(r.summary.computed, r.summary.cached); },
  }).catch((err: unknown) => {
    c.log(`genstudy: watch: stopped (${err instanceof Error ? err.message : String(err)}); training goes on and its checkpoints are ` +
      `evaluated when it ends`);
    return undefined;
  });
  let trained;
  try {
    trained = await trainHf(hf, backend.launch, io);
  } finally {
    controller.abort();
    await watching;
  }
  const missing = reconcileRun({ saved: trained.prepared.saveSteps, evaluated: (await watching)?.evaluatedSteps ?? [],
    storePath: c.gridOptions.storePath, run: c.gridOptions.run, runDir: options.outDir });
  if (missing.length > 0) c.log(`genstudy: ${c.gridOptions.run}: ${describeMissing(missing)}`);
  return { backend: 'hf', trained, stepsTaken: trained.prepared.totalSteps - before };
}
