// One training outside a study, as `genstudy train` asks for it: the base model (a folder, or a
// tiny one built from scratch for the synthetic suite), the training data (a registered id, a data
// set spec file, or the generated suite), the task, FTICL's demonstrations and a results store,
// trained by trainRun on the backend asked for, as a study's runs are. The CLI parses the flags
// into a TrainRequest and prints what this returns; a library user calls it the same way.
import path from 'node:path';
import { UserError } from '../errors.ts';
import { loadExamples } from '../data/index.ts';
import { defaultLoraTargetsOf } from '../engine/index.ts';
import { defaultRunName, runFolderOf } from '../evaluate/run-folder.ts';
import { ResultStore } from '../store/result-store.ts';
import { generateSuite, writeSuite, SUITE_DEFAULTS } from '../synth/index.ts';
import { taskByName } from '../tasks/index.ts';
import { TRAINING_DEFAULTS, type LoraConfig, type ProgressSink, type TrainOptions } from '../train/index.ts';
import type { Example } from '../types.ts';
import { buildScratchModel, type ScratchModel } from './model-preparation.ts';
import { trainRun, type TrainBackend, type TrainRunResult } from './train-run.ts';

/** The trainer's settings a request gives: TrainOptions less what the request resolves (model, data, task, store). */
export type TrainRequestSettings = Omit<TrainOptions,
  'model' | 'outDir' | 'task' | 'train' | 'dataName' | 'demonstrations' | 'store' | 'run' | 'progress' | 'onStep' | 'onCheckpoint' | 'lora'> & {
  /** LoRA's rank, alpha and dropout; targetModules default to the base model family's (defaultLoraTargetsOf). */
  lora?: Omit<LoraConfig, 'targetModules'> & { targetModules?: string[] };
};

export interface TrainRequest {
  /** The base model: a Hugging Face folder, or a tiny model initialised from scratch (with data "synthetic" only). */
  base: { model: string } | { init: ScratchModel };
  /** A registered id such as study-b/sentiment/amazon:train-2000, a data set spec file (YAML/JSON), or "synthetic" (the generated suite). */
  data: string;
  /** The suite's seed and training-set size, for data "synthetic" (default: SUITE_DEFAULTS'). */
  synthetic?: { seed: number; trainSize: number };
  /** The folder registered ids' local files are read from. */
  dataDir?: string;
  /** A task preset or task spec file (default: synthetic with data "synthetic", else study-a). */
  task?: string;
  /** Study B's prompt (1 or 2; default 1). */
  prompt?: 1 | 2;
  /**
   * FTICL: k demonstrations before every example, from `pool` (a spec file or registered id; default:
   * the training data), the same first k for all, or sampled per example with `seed`.
   */
  fticl?: { k: number; pool?: string; seed?: number };
  settings: TrainRequestSettings;
  /** Where checkpoint-N folders go (and, with an init model, suite/ and init-model/). */
  out: string;
  /** A results store to record the training log and checkpoints in, under `run` (default: the out folder's run name). */
  store?: string;
  run?: string;
  backend: TrainBackend;
  progress?: ProgressSink;
}

/** The training examples a request names, the name the store records them under, and the base model (built from scratch where asked). */
async function trainingData(r: TrainRequest, seed: number): Promise<{ examples: Example[]; dataName: string; model: string }> {
  if (r.data === 'synthetic') {
    const { seed: suiteSeed, trainSize } = r.synthetic ?? SUITE_DEFAULTS;
    const suite = generateSuite({ seed: suiteSeed, trainSize, testSize: SUITE_DEFAULTS.testSize });
    const dataName = `synthetic:seed=${suiteSeed}`;
    if ('model' in r.base) return { examples: suite.train, dataName, model: r.base.model };
    const suiteDir = path.join(r.out, 'suite');
    await writeSuite(suiteDir, suite);
    return { examples: suite.train, dataName, model: await buildScratchModel(r.base.init, suiteDir, seed, path.join(r.out, 'init-model')) };
  }
  if (!('model' in r.base)) throw new UserError('--init builds a model for the synthetic suite\'s vocabulary; use it with --data synthetic');
  const { examples, name } = await loadExamples(r.data, { dataDir: r.dataDir });
  return { examples, dataName: name, model: r.base.model };
}

/** Trains what the request names (resuming from the last checkpoint in `out`), through trainRun; the store is closed after. */
export async function trainRequested(r: TrainRequest): Promise<TrainRunResult> {
  const task = taskByName(r.task ?? (r.data === 'synthetic' ? 'synthetic' : 'study-a'), { prompt: r.prompt ?? 1 });
  const { examples, dataName, model } = await trainingData(r, r.settings.seed ?? TRAINING_DEFAULTS.seed);
  const demonstrations = r.fticl === undefined ? undefined : {
    pool: r.fticl.pool ? (await loadExamples(r.fticl.pool, { dataDir: r.dataDir })).examples : examples,
    selection: r.fticl.seed === undefined
      ? { kind: 'first-k' as const, k: r.fticl.k }
      : { kind: 'sampled' as const, k: r.fticl.k, seed: r.fticl.seed },
  };
  const { lora, ...settings } = r.settings;
  const store = r.store ? ResultStore.open(r.store) : undefined;
  try {
    return await trainRun({
      model, outDir: r.out, task, train: examples, dataName, demonstrations,
      ...settings, lora: lora && { ...lora, targetModules: lora.targetModules ?? defaultLoraTargetsOf(model) },
      store, run: store ? (r.run ?? defaultRunName(runFolderOf(r.out))) : undefined,
      progress: r.progress,
    }, r.backend);
  } finally {
    store?.close();
  }
}
