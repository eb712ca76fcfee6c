// What a Hugging Face run trains on, prepared by the same calls as the built-in trainer
// (encodeRun: runPieces -> encodeForTraining; the order of order.ts; the schedule's warmup; the checkpoint
// policy), so both backends see the same strings, tokens, scored positions, targets, subset and
// order. Written into <out>/genstudy-hf/:
//   sequences.jsonl  one line per training sequence: input_ids, loss_positions, targets (real_length:
//                    study A's padded reading, the first real_length ids are tokens, the rest masked padding)
//   batches.json     the run's micro-batches in order (lists of sequence indices): the whole stream
//                    of every epoch, so the Trainer reads it sequentially and needs no shuffling of its own
//   run.json         what runner.py reads: model, settings, checkpoint steps, launcher-independent
// The settings map one to one onto TrainingArguments; a setting the Trainer cannot honour is refused
// here, before anything is launched.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.ts';
import { readConfig, familyFor, loadTokenizer } from '../../engine/index.ts';
import { resolveOptions, type ResolvedOptions, type TrainOptions } from '../options.ts';
import { stepMicroBatches, totalSteps, type OrderOptions } from '../order.ts';
import { checkpointSteps } from '../policy.ts';
import { warmupStepsOf } from '../schedule.ts';
import type { TrainSequence } from '../sequences.ts';
import { encodeRun } from '../trainer.ts';
import { STORED_OBJECTIVE } from '../option-table.ts';
import { processesOf } from './launch.ts';

/** What only the Hugging Face backend has. */
export interface HfSettings {
  /** Processes (GPUs) of the launch: global batch = batchSize x (gradAccum / processes) x processes. Default HF_LAUNCH_DEFAULTS'. */
  processes?: number;
  /** LoRA: start from this PEFT adapter folder instead of a fresh draw (e.g. the built-in trainer's checkpoint-0). */
  loraInit?: string;
  /** torch dtype of the weights while training. Default float32 (what the built-in trainer uses). */
  dtype?: 'float32' | 'bfloat16' | 'float16';
  /** transformers' attention implementation (eager, sdpa, flash_attention_2); default: transformers' choice. */
  attnImplementation?: string;
  /** Train on the CPU even where a GPU is present. */
  useCpu?: boolean;
  /** More TrainingArguments, passed as they are (e.g. { bf16: true, gradient_checkpointing: true, deepspeed: "ds.json" }). */
  trainingArguments?: Record<string, unknown>;
  /**
   * Accept checkpoints deleted before they are evaluated: save_total_limit makes the Trainer delete
   * old checkpoints right after saving a new one (_rotate_checkpoints), so a watcher that falls
   * behind never sees them; refused unless accepted, and the missing steps are reported.
   */
  acceptCheckpointGaps?: boolean;
}

export type HfTrainOptions = Omit<TrainOptions, 'onStep' | 'onCheckpoint' | 'progress'> & HfSettings;

export interface PreparedRun {
  /** <out>/genstudy-hf */
  dir: string;
  /** run.json, the runner's one argument. */
  runFile: string;
  totalSteps: number;
  saveSteps: number[];
  sequences: number;
  fingerprint: string;
  /** Micro-batches per optimiser step on each process. */
  gradAccumPerProcess: number;
  /** Input tokens over the whole run (tokens per second in the bench). */
  inputTokens: number;
}

export const PREPARED_FOLDER = 'genstudy-hf';
const TRAINER_SCHEDULES = { linear: 'linear', cosine: 'cosine', constant: 'constant_with_warmup' } as const;

/** Settings the Trainer has no way to honour, refused with what to do instead. */
function refuseUnsupported(o: ResolvedOptions, s: HfSettings, processes: number): void {
  if (!Number.isInteger(processes) || processes < 1) throw new UserError(`processes: expected a whole number >= 1, got ${processes}`);
  if (o.mergeLora) {
    throw new UserError('the hf backend does not write merged/ models into LoRA checkpoints (the Trainer saves PEFT adapters); ' +
      'evaluate the adapters on their base (vLLM and genstudy load them as LoRA adapters), or merge afterwards with PEFT\'s merge_and_unload');
  }
  if (o.gradAccum % processes !== 0) {
    throw new UserError(`gradient accumulation ${o.gradAccum} is not a multiple of ${processes} processes: with the hf backend an optimiser step ` +
      `takes gradAccum micro-batches spread over the processes (global batch = batch size x gradAccum / processes per process x processes); ` +
      `give a gradAccum divisible by the processes`);
  }
  if (s.loraInit !== undefined && o.method !== 'lora') throw new UserError('loraInit is for method "lora"');
  if (s.loraInit !== undefined && !fs.existsSync(path.join(s.loraInit, 'adapter_config.json'))) {
    throw new UserError(`${s.loraInit}: not a PEFT adapter folder (no adapter_config.json)`);
  }
  if (s.trainingArguments) {
    const owned = ['output_dir', 'per_device_train_batch_size', 'gradient_accumulation_steps', 'max_steps', 'num_train_epochs', 'learning_rate',
      'lr_scheduler_type', 'warmup_steps', 'warmup_ratio', 'weight_decay', 'adam_beta1', 'adam_beta2', 'adam_epsilon', 'max_grad_norm', 'seed',
      'optim', 'logging_steps', 'save_strategy', 'save_steps', 'train_sampling_strategy'];
    const clash = Object.keys(s.trainingArguments).filter((k) => owned.includes(k));
    if (clash.length) throw new UserError(`training arguments ${clash.join(', ')}: genstudy sets these from its own settings; use those instead`);
    const limit = s.trainingArguments.save_total_limit;
    if (limit !== undefined && limit !== null && !s.acceptCheckpointGaps) {
      throw new UserError(`training argument save_total_limit ${JSON.stringify(limit)}: the Trainer deletes older checkpoints as soon as ` +
        'it saves a new one, so those not yet evaluated would be missing from the series; drop it, or accept the gaps ' +
        '(hf.acceptCheckpointGaps: true in the study file, --accept-checkpoint-gaps for train), and the missing steps are reported after training');
    }
  }
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** The training sequences of a run, as the built-in trainer builds them, without loading the weights. */
export function runSequences(o: ResolvedOptions): TrainSequence[] {
  const config = readConfig(o.model);
  const arch = familyFor(config.model_type, path.join(o.model, 'config.json')).parseConfig(config, path.join(o.model, 'config.json'));
  const maxLength = Math.min(o.maxLength ?? arch.maxPositions, arch.maxPositions);
  return encodeRun(o, loadTokenizer(o.model), maxLength);
}

/** The micro-batches of the whole run, in the order the built-in trainer takes them. */
export function runStream(order: OrderOptions, total: number): number[][] {
  const out: number[][] = [];
  for (let step = 0; step < total; step++) for (const m of stepMicroBatches(order, step)) out.push(m.indices);
  return out;
}

/** Writes <out>/genstudy-hf (or checks that an earlier one belongs to the same run) and returns what launching needs. */
export function prepareHfRun(options: HfTrainOptions): PreparedRun {
  const o = resolveOptions(options as TrainOptions);
  const processes = processesOf(options);
  refuseUnsupported(o, options, processes);
  const model = path.resolve(o.model);
  const seqs = runSequences({ ...o, model });
  const order: OrderOptions = { examples: seqs.length, batchSize: o.batchSize, gradAccum: o.gradAccum, epochs: o.epochs,
    maxSteps: o.maxSteps, shuffle: o.shuffle, seed: o.seed };
  const total = totalSteps(order);
  const stream = runStream(order, total);
  if (processes > 1 && stream.length % processes !== 0) {
    throw new UserError(`the run has ${stream.length} micro-batches, not a multiple of ${processes} processes, so its last step cannot be spread ` +
      'over them as the built-in trainer takes it; give --steps (every step then has gradAccum micro-batches) or another batch size');
  }
  const outDir = path.resolve(o.outDir);
  const dir = path.join(outDir, PREPARED_FOLDER);
  const saveSteps = checkpointSteps(o.checkpoints ?? {}, total).filter((s) => s > 0);
  const settings = {
    lr: o.lr, schedule: TRAINER_SCHEDULES[o.schedule], warmup_steps: warmupStepsOf(total, o.warmupSteps, o.warmupRatio),
    weight_decay: o.weightDecay, betas: o.betas, eps: o.adamEps, max_grad_norm: o.maxGradNorm, total_steps: total,
    batch_size: o.batchSize, grad_accum: o.gradAccum, grad_accum_per_process: o.gradAccum / processes, processes, log_every: o.logEvery,
    // Only when not the default (runner.py then uses each micro-batch's own mean), so earlier fingerprints stay.
    ...(o.lossWeighting === 'micro-batch-mean' ? { loss_weighting: o.lossWeighting } : {}),
  };
  const sequencesText = seqs.map((s) => JSON.stringify({
    id: s.exampleId, input_ids: s.ids, loss_positions: s.lossPositions, targets: s.targets,
    ...(s.realLength === undefined ? {} : { real_length: s.realLength }),
  })).join('\n') + '\n';
  const batchesText = JSON.stringify(stream) + '\n';
  const run = {
    format: 'genstudy-hf-run', version: 1, model, out_dir: outDir, method: o.method, seed: o.seed,
    // The objective as run.json (hashed into the fingerprint) was first written, so that earlier runs still resume.
    objective: STORED_OBJECTIVE[o.objective], model_dropout: o.modelDropout, dtype: options.dtype ?? 'float32',
    attn_implementation: options.attnImplementation ?? null, use_cpu: options.useCpu ?? false,
    lora: o.method === 'lora' ? { r: o.lora!.r, alpha: o.lora!.alpha, dropout: o.lora!.dropout, targets: o.lora!.targetModules,
      init: options.loraInit ? path.resolve(options.loraInit) : null } : null,
    settings, save_steps: saveSteps, training_arguments: options.trainingArguments ?? {},
    sequences: path.join(dir, 'sequences.jsonl'), batches: path.join(dir, 'batches.json'),
    resume: o.resume,
  };
  const fingerprint = sha(JSON.stringify({ ...run, resume: null, data: sha(sequencesText), order: sha(batchesText) }));
  const runFile = path.join(dir, 'run.json');
  if (o.resume && fs.existsSync(runFile)) {
    const earlier = JSON.parse(fs.readFileSync(runFile, 'utf8')) as { fingerprint?: string };
    const hasCheckpoints = fs.readdirSync(outDir).some((n) => /^checkpoint-\d+$/.test(n));
    if (earlier.fingerprint !== fingerprint && hasCheckpoints) {
      throw new UserError(`${runFile}: ${outDir} holds checkpoints of a run with other settings or data ` +
        `(fingerprint ${earlier.fingerprint}, now ${fingerprint}); ` +
        'use another --out folder, or turn resuming off');
    }
  }
  fs.mkdirSync(dir, { recursive: true });
  writeAtomic(run.sequences, sequencesText);
  writeAtomic(run.batches, batchesText);
  writeAtomic(runFile, JSON.stringify({ ...run, fingerprint }, null, 2) + '\n');
  return {
    dir, runFile, totalSteps: total, saveSteps, sequences: seqs.length, fingerprint, gradAccumPerProcess: o.gradAccum / processes,
    inputTokens: stream.reduce((n, b) => n + b.reduce((k, i) => k + seqs[i].ids.length, 0), 0),
  };
}
