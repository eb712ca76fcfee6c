// Trains one run of a study on the backend its method names, evaluating checkpoints as they are
// written: the built-in trainer calls back after each checkpoint; the hf backend's Trainer runs in
// child processes while a watcher evaluates each checkpoint-N it completes.
import fs from 'node:fs';
import path from 'node:path';
import type { Study } from '../config/schema.ts';
import { discoverCheckpoints, type GridOptions } from '../evaluate/index.ts';
import { train, type TrainOptions } from '../train/index.ts';
import { trainHf } from '../train/hf/index.ts';
import { watchRun } from './watch.ts';
import { describeMissing, reconcileRun } from './checkpoint-reconcile.ts';

/** Polling pause of the watcher beside an hf launch: checkpoints come minutes apart at real scale. */
const HF_WATCH_INTERVAL_MS = 2000;

export interface TrainRunContext {
  studyDir: string; runDir: string; modelDir: string;
  /** What every evaluation of the run shares (the watcher's grid too). */
  gridOptions: Omit<GridOptions, 'checkpoints'>;
  evaluate: (checkpoints: { step: number; dir: string; base?: string; tokenizer?: string }[]) => Promise<void>;
  log: (line: string) => void;
  /** Told the answers each watcher round computed and took from the cache. */
  countAnswers: (computed: number, cached: number) => void;
}

/** Trains the run; returns the optimiser steps this invocation took (not those of a run it resumed). */
export async function trainRun(study: Study, backend: 'builtin' | 'hf', options: TrainOptions, c: TrainRunContext): Promise<number> {
  if (backend === 'hf') return trainOnHf(study, options, c);
  const trained = await train({
    ...options,
    onCheckpoint: async ({ step }) => {
      const found = discoverCheckpoints(c.runDir, { baseModel: c.modelDir }).checkpoints.filter((cp) => cp.step === step);
      if (found.length) await c.evaluate(found);
    },
  });
  return trained.steps - (trained.resumedFrom ?? 0);
}

/**
 * A run on the hf backend: step 0 is the base model (the Trainer saves no checkpoint before its
 * first step); the launch trains in child processes while the watcher evaluates each checkpoint-N
 * it completes; the Trainer's log_history goes into the store.
 */
async function trainOnHf(study: Study, options: TrainOptions, c: TrainRunContext): Promise<number> {
  const { progress: _progress, onCheckpoint: _cp, onStep: _step, ...hfOptions } = options;
  if (study.checkpoints.atStart) await c.evaluate([{ step: 0, dir: c.modelDir }]);
  const hf = study.hf;
  const before = fs.existsSync(c.runDir) ? Math.max(0, ...fs.readdirSync(c.runDir).map((n) => Number(/^checkpoint-(\d+)$/.exec(n)?.[1] ?? 0))) : 0;
  fs.mkdirSync(c.runDir, { recursive: true });
  const controller = new AbortController();
  // A watcher that fails is reported and training goes on: the checkpoints it missed are evaluated
  // when training ends (the caller's discoverCheckpoints), never an unhandled rejection mid-run.
  const watching = watchRun({
    ...c.gridOptions, runDir: c.runDir, baseModel: c.modelDir, tokenizerDir: c.modelDir,
    intervalMs: HF_WATCH_INTERVAL_MS, signal: controller.signal, log: (line) => c.log(`genstudy: watch: ${line}`),
    onRound: (r) => { if (r.summary) c.countAnswers(r.summary.computed, r.summary.cached); },
  }).catch((err: unknown) => {
    c.log(`genstudy: watch: stopped (${err instanceof Error ? err.message : String(err)}); training goes on and its checkpoints are ` +
      `evaluated when it ends`);
    return undefined;
  });
  let trained;
  try {
    trained = await trainHf({ ...hfOptions, trainingArguments: hf.trainingArguments, acceptCheckpointGaps: hf.acceptCheckpointGaps }, {
      launcher: hf.launcher, python: hf.python, processes: hf.processes,
      accelerateConfig: hf.accelerateConfig === undefined ? undefined : path.resolve(c.studyDir, hf.accelerateConfig),
    }, { onOutput: (chunk) => { for (const line of chunk.split('\n')) if (line.trim()) c.log(`genstudy: hf: ${line}`); } });
  } finally {
    controller.abort();
    await watching;
  }
  const missing = reconcileRun({ saved: trained.prepared.saveSteps, evaluated: (await watching)?.evaluatedSteps ?? [],
    storePath: c.gridOptions.storePath, run: c.gridOptions.run, runDir: c.runDir });
  if (missing.length > 0) c.log(`genstudy: ${c.gridOptions.run}: ${describeMissing(missing)}`);
  return trained.prepared.totalSteps - before;
}
