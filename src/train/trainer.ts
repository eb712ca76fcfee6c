// The training loop: full fine-tuning or LoRA on the built-in engine, AdamW, a warmup schedule,
// gradient accumulation and global-norm clipping, with checkpoints along the way and resume.
//
// Determinism: the data order is a function of (seed, epoch), LoRA's and the model's dropout masks of
// (seed, step, micro-batch, call; step.ts), and the weights and optimiser state at step N are in
// checkpoint-N; a run resumed from checkpoint-N therefore repeats exactly what the uninterrupted run
// would have done.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { UserError } from '../errors.ts';
import { pausePoint } from '../pause-point.ts';
import { describeModelFolder, enableTrainingGradients, loadModel, LoraAdapters, BuiltinModel, Params } from '../engine/index.ts';
import { demonstrationsFor } from '../tasks/demonstrations.ts';
import { trainingPieces } from '../tasks/demonstrations.ts';
import { seededRandom } from '../seeded-random.ts';
import type { Example, Tokenizer } from '../types.ts';
import { AdamW } from './adamw.ts';
import {
  listCheckpoints, readOptimizer, removeStaleTemporaries, readState, writeCheckpoint, writeOptimizer, writeState,
  type LogEntry, type TrainerState,
} from './checkpoints.ts';
import { optimiserStep } from './step.ts';
import { resolveOptions, type ResolvedOptions, type TrainOptions } from './options.ts';
import { STORED_OBJECTIVE } from './option-table.ts';
import { stepMicroBatches, totalSteps, type OrderOptions } from './order.ts';
import { trainingRunRecord } from './run-attributes.ts';
import { checkpointSteps } from './policy.ts';
import { silentProgress } from './progress.ts';
import { lrMultiplier, warmupStepsOf } from './schedule.ts';
import { encodeForTraining, truncationNote, type TrainSequence } from './sequences.ts';

export interface TrainResult {
  steps: number;
  /** Checkpoint folders written or found, by step. */
  checkpoints: { step: number; dir: string }[];
  log: LogEntry[];
  resumedFrom?: number;
}

/** The examples trained on: all, the first trainSize, or trainSize sampled with subsetSeed. */
export function trainingSubset(train: readonly Example[], trainSize?: number, subsetSeed?: number): Example[] {
  if (trainSize === undefined || trainSize >= train.length) return [...train];
  if (subsetSeed === undefined) return train.slice(0, trainSize);
  return seededRandom(subsetSeed, 'train-subset').shuffle(train).slice(0, trainSize);
}

/** The training strings of a run, as trainingPieces builds them (FTICL demonstrations included). */
export function runPieces(o: Pick<TrainOptions, 'task' | 'train' | 'trainSize' | 'subsetSeed' | 'demonstrations' | 'join'>) {
  const examples = trainingSubset(o.train, o.trainSize, o.subsetSeed);
  const demos = o.demonstrations ? demonstrationsFor(o.task, o.demonstrations.pool, o.demonstrations.selection, 'FTICL demonstrations') : undefined;
  return trainingPieces(o.task, examples, { demonstrations: demos, join: o.join });
}

/** The run's training sequences: its pieces encoded for its objective (both training backends train on these). */
export function encodeRun(o: ResolvedOptions, tokenizer: Tokenizer, maxLength: number): TrainSequence[] {
  const fixed = o.labelTokenIds ?? {};
  const isFixed = (ex: Example) => ex.label !== undefined && Object.hasOwn(fixed, ex.label);
  if (o.train.some(isFixed) && o.objective !== 'label-token') {
    throw new UserError('labelTokenIds (study A\'s replayed neutral rows) apply to the label-token objective only');
  }
  // A fixed-target row is built with a stand-in label (its context does not depend on it); its target is then the fixed id.
  const targetOf = new Map(o.train.filter(isFixed).map((ex) => [ex.id, fixed[ex.label!]]));
  const standIn = (ex: Example) => ({ ...ex, label: o.task.kind === 'classify' ? o.task.labels[0] : ex.label });
  const train = targetOf.size ? o.train.map((ex) => (isFixed(ex) ? standIn(ex) : ex)) : o.train;
  const seqs = encodeForTraining(tokenizer, runPieces({ ...o, train }), o.objective, maxLength, o.labelTokens, o.padTo, o.truncation)
    .map((s) => (targetOf.has(s.exampleId) ? { ...s, targets: [targetOf.get(s.exampleId)!] } : s));
  const note = truncationNote(seqs, maxLength);
  if (note) o.log?.(note);
  return seqs;
}

function fingerprint(o: ResolvedOptions, baseId: string, seqs: readonly TrainSequence[]): string {
  const data = createHash('sha256');
  for (const s of seqs) data.update(JSON.stringify([s.ids, s.lossPositions, s.targets]));
  const settings = {
    baseId, method: o.method, lora: o.method === 'lora' ? o.lora : null, lr: o.lr, weightDecay: o.weightDecay, betas: o.betas,
    eps: o.adamEps, schedule: o.schedule, warmupSteps: o.warmupSteps, warmupRatio: o.warmupRatio, batchSize: o.batchSize,
    gradAccum: o.gradAccum, maxGradNorm: o.maxGradNorm, epochs: o.epochs, maxSteps: o.maxSteps ?? null, seed: o.seed,
    // The objective as runs were first fingerprinted (STORED_OBJECTIVE), so that they still resume.
    shuffle: o.shuffle, objective: STORED_OBJECTIVE[o.objective], modelDropout: o.modelDropout, data: data.digest('hex'),
    // Only when not the default, so that the fingerprints of runs written before the setting existed still match.
    ...(o.lossWeighting === 'micro-batch-mean' ? { lossWeighting: o.lossWeighting } : {}),
  };
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 32);
}

function orderOf(o: ResolvedOptions, examples: number): OrderOptions {
  return { examples, batchSize: o.batchSize, gradAccum: o.gradAccum, epochs: o.epochs, maxSteps: o.maxSteps, shuffle: o.shuffle, seed: o.seed };
}

/** Trainable model: full fine-tuning replaces every parameter by a variable. */
function withVariables(base: BuiltinModel): { model: BuiltinModel; params: Map<string, tf.Variable> } {
  const params = new Map<string, tf.Variable>();
  for (const [name, t] of base.params.tensors) params.set(name, tf.variable(t, true));
  base.params.dispose();
  const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(params as Map<string, tf.Tensor>, false),
    base.tokenizer, base.config);
  return { model, params };
}

export async function train(options: TrainOptions): Promise<TrainResult> {
  const o = resolveOptions(options);
  const progress = o.progress ?? silentProgress;
  fs.mkdirSync(o.outDir, { recursive: true });
  removeStaleTemporaries(o.outDir);

  const existing = o.resume ? listCheckpoints(o.outDir) : [];
  const resumeFrom = existing.at(-1);
  const resumeState = resumeFrom ? readState(resumeFrom.dir) : undefined;
  const mismatch = (detail: string) => new UserError(`${path.join(resumeFrom!.dir, 'trainer_state.json')}: this checkpoint belongs to a run with ` +
    `other settings or data (${detail}); use another --out folder, or turn resuming off`);
  if (resumeState && resumeState.method !== o.method) throw mismatch(`method ${resumeState.method}, now ${o.method}`);
  const modelDir = resumeFrom && o.method === 'full' ? resumeFrom.dir : o.model;
  const recordRun = (total: number, sequences: number, fp: string, kept: { step: number; dir: string }[]) => {
    if (!o.store || !o.run) return;
    const store = o.store;
    store.upsertRun(trainingRunRecord(o, { steps: total, sequences, fingerprint: fp, backend: 'builtin', processes: 1 }));
    // A checkpoint folder is renamed into place before its store row is written, so a process that
    // died in between (a kill, a full disk, a store locked by another process) left a folder the store
    // lacks: every kept folder is recorded again (an upsert, so rows already there stay as they are).
    store.transaction(() => { for (const c of kept) store.upsertCheckpoint({ run: o.run!, step: c.step, path: path.resolve(c.dir) }); });
  };
  // A run whose last checkpoint is its last step has nothing left to train: it is proved the same
  // run (fingerprint) from the config, tokenizer and weight files alone, without loading the model
  // or starting the engine, so a finished study resumes in seconds.
  if (resumeFrom && resumeState && resumeState.global_step >= resumeState.total_steps) {
    const described = describeModelFolder(modelDir);
    const seqs = encodeRun(o, described.tokenizer, Math.min(o.maxLength ?? described.maxLength, described.maxLength));
    const total = totalSteps(orderOf(o, seqs.length));
    if (resumeState.global_step === total) {
      const fp = fingerprint(o, o.method === 'full' ? resumeState.base_model : described.id, seqs);
      if (resumeState.fingerprint !== fp) throw mismatch(`fingerprint ${resumeState.fingerprint}, now ${fp}`);
      recordRun(total, seqs.length, fp, existing);
      progress.start(total, total);
      progress.stop();
      return { steps: total, checkpoints: existing, log: resumeState.log_history.filter((e) => e.step <= total), resumedFrom: resumeFrom.step };
    }
  }
  const base = await loadModel(modelDir);
  enableTrainingGradients();
  const maxLength = Math.min(o.maxLength ?? base.maxLength, base.maxLength);
  const seqs = encodeRun(o, base.tokenizer, maxLength);
  const order = orderOf(o, seqs.length);
  const total = totalSteps(order);
  const warmup = warmupStepsOf(total, o.warmupSteps, o.warmupRatio);
  const saveAt = new Set(checkpointSteps(o.checkpoints ?? {}, total));

  let model: BuiltinModel;
  let trainable: Map<string, tf.Variable>;
  let adapters: LoraAdapters | undefined;
  const noDecay = new Set<string>();
  if (o.method === 'full') {
    ({ model, params: trainable } = withVariables(base));
    for (const [name, v] of trainable) if (name.endsWith('.bias') || v.rank === 1) noDecay.add(name);
  } else {
    model = base;
    adapters = resumeFrom ? LoraAdapters.load(base, resumeFrom.dir) : LoraAdapters.create(base, o.lora!, o.seed);
    trainable = adapters.namedVariables();
  }
  // A full fine-tuning run resumes from the checkpoint's weights; the run is still named by its base.
  const baseModelName = o.method === 'full' && resumeState ? resumeState.base_model : base.id;
  const fp = fingerprint(o, baseModelName, seqs);
  const optimizer = new AdamW(trainable, { betas: o.betas, eps: o.adamEps, weightDecay: o.weightDecay, noDecay });
  const release = () => {
    adapters?.dispose();
    optimizer.dispose();
    model.dispose();
  };

  let start = 0;
  let log: LogEntry[] = [];
  if (resumeFrom && resumeState) {
    try {
      if (resumeState.fingerprint !== fp) throw mismatch(`fingerprint ${resumeState.fingerprint}, now ${fp}`);
      readOptimizer(resumeFrom.dir, optimizer);
    } catch (err) {
      release();
      throw err;
    }
    start = resumeState.global_step;
    log = resumeState.log_history.filter((e) => e.step <= start);
  }

  const checkpoints: { step: number; dir: string }[] = existing.filter((c) => c.step <= start);
  recordRun(total, seqs.length, fp, checkpoints);
  const save = async (step: number, epoch: number) => {
    const dir = await writeCheckpoint(o.outDir, step, async (tmp) => {
      if (adapters) {
        await adapters.save(tmp, path.resolve(o.model));
        if (o.mergeLora) {
          const merged = adapters.merged();
          try { await merged.save(path.join(tmp, 'merged')); } finally { merged.dispose(); }
        }
      } else {
        await model.save(tmp);
      }
      pausePoint(`checkpoint-${step}:weights-written`);
      await writeOptimizer(tmp, optimizer);
      const state: TrainerState = {
        global_step: step, total_steps: total, epoch, fingerprint: fp, method: o.method, base_model: baseModelName, log_history: log,
      };
      writeState(tmp, state);
    });
    checkpoints.push({ step, dir });
    o.store?.upsertCheckpoint({ run: o.run!, step, path: path.resolve(dir) });
    if (o.onCheckpoint) {
      adapters?.attach(undefined);
      await o.onCheckpoint({ step, dir, model });
    }
  };

  progress.start(total, start);
  try {
    // A run resumed from checkpoint-0 keeps it: rewriting a finished checkpoint only opens a window
    // in which a kill leaves none.
    if (start === 0 && saveAt.has(0) && !checkpoints.some((c) => c.step === 0)) await save(0, 0);
    for (let step = start; step < total; step++) {
      const t0 = performance.now();
      const micro = stepMicroBatches(order, step);
      const batches = micro.map((m) => m.indices.map((i) => seqs[i]));
      const lr = o.lr * lrMultiplier(o.schedule, step, total, warmup);
      const { loss, gradNorm, tokens } = await optimiserStep({
        model, trainable, optimizer, adapters, maxGradNorm: o.maxGradNorm, seed: o.seed, modelDropout: o.modelDropout,
        lossWeighting: o.lossWeighting, gradAccum: o.gradAccum,
      }, batches, step, lr);
      const done = step + 1;
      const entry: LogEntry = {
        step: done, loss, learningRate: lr, gradNorm, tokensPerSecond: tokens / ((performance.now() - t0) / 1000), epoch: micro.at(-1)?.epoch ?? 0,
      };
      if (done % o.logEvery === 0 || done === total) {
        log.push(entry);
        progress.step(entry, total);
        o.store?.writeTrainingLog([{ run: o.run!, step: done, loss, learningRate: lr, gradNorm, tokensPerSecond: entry.tokensPerSecond }]);
      }
      if (saveAt.has(done)) await save(done, entry.epoch);
      o.onStep?.(entry);
    }
  } finally {
    progress.stop();
    release();
  }
  return { steps: total, checkpoints, log, resumedFrom: resumeFrom?.step };
}

