// The Hugging Face training backend: genstudy prepares the run exactly as its built-in trainer
// would (prepare.ts), transformers' Trainer (with PEFT for LoRA) trains it through runner.py under
// accelerate, torchrun or SLURM (launch.ts), and the Trainer's log_history becomes the store's
// training log (log-history.ts). Its checkpoint-N folders are ordinary Trainer / PEFT folders that
// genstudy evaluate / watch read as they appear.
import path from 'node:path';
import { resolveOptions, type TrainOptions } from '../options.ts';
import type { LogEntry } from '../checkpoints.ts';
import { processesOf, runLaunch, submitSlurm, type LaunchOptions, type LaunchResult } from './launch.ts';
import { readLogHistory, trainerCheckpoints } from './log-history.ts';
import { prepareHfRun, type HfTrainOptions, type PreparedRun } from './prepare.ts';
import { trainingRunRecord } from '../run-attributes.ts';

export { prepareHfRun, runSequences, runStream, PREPARED_FOLDER, type HfTrainOptions, type HfSettings, type PreparedRun } from './prepare.ts';
export { launchCommand, slurmScript, submitSlurm, runLaunch, defaultPython, processesOf, LAUNCHERS, RUNNER, type Launcher,
  type LaunchOptions, type LaunchResult } from './launch.ts';
export { readLogHistory, trainerCheckpoints } from './log-history.ts';

export interface HfTrainResult {
  prepared: PreparedRun;
  launch: LaunchResult;
  /** Whether training ran here to its end (false: submitted to SLURM, or only written). */
  finished: boolean;
  checkpoints: { step: number; dir: string }[];
  log: LogEntry[];
}

/** Copies the Trainer's log so far and its checkpoints into the store. */
export function recordTrainerProgress(o: Pick<TrainOptions, 'outDir' | 'store' | 'run'>): LogEntry[] {
  const log = readLogHistory(o.outDir);
  if (o.store && o.run) {
    const orNull = (x: number) => (Number.isFinite(x) ? x : null);
    o.store.writeTrainingLog(log.map((e) => ({ run: o.run!, step: e.step, loss: e.loss, learningRate: orNull(e.learningRate),
      gradNorm: orNull(e.gradNorm), tokensPerSecond: orNull(e.tokensPerSecond) })));
    for (const c of trainerCheckpoints(o.outDir)) o.store.upsertCheckpoint({ run: o.run, step: c.step, path: path.resolve(c.dir) });
  }
  return log;
}

export async function trainHf(options: HfTrainOptions, launch: LaunchOptions,
  io: { signal?: AbortSignal; onOutput?: (chunk: string) => void } = {}): Promise<HfTrainResult> {
  // One number of processes for the prepared batches, the launch and the run's record.
  const processes = processesOf({ processes: launch.processes ?? options.processes });
  launch = { ...launch, processes };
  const prepared = prepareHfRun({ ...options, processes });
  const o = resolveOptions(options as TrainOptions);
  if (o.store && o.run) {
    o.store.upsertRun(trainingRunRecord(o, {
      steps: prepared.totalSteps, sequences: prepared.sequences, fingerprint: prepared.fingerprint, backend: 'hf', processes,
    }));
  }
  if (launch.launcher === 'slurm') {
    const result = submitSlurm(prepared.runFile, { ...launch, jobName: `genstudy-${o.run ?? path.basename(path.resolve(o.outDir))}` });
    return { prepared, launch: result, finished: false, checkpoints: trainerCheckpoints(o.outDir), log: [] };
  }
  let result: LaunchResult;
  try {
    result = await runLaunch(prepared.runFile, launch, io);
  } finally {
    // A failed or stopped launch still leaves its checkpoints and log up to there.
    recordTrainerProgress(o);
  }
  return { prepared, launch: result, finished: true, checkpoints: trainerCheckpoints(o.outDir), log: readLogHistory(o.outDir) };
}
