// The trainer's settings, with the defaults of transformers' TrainingArguments where the studies
// rely on them, and checks that name the offending setting.
import { UserError } from '../errors.ts';
import type { LoraConfig, BuiltinModel, LabelTokenRule } from '../engine/index.ts';
import type { DemonstrationSelection } from '../tasks/demonstrations.ts';
import type { JoinOptions, TaskSpec } from '../tasks/task.ts';
import type { ResultStore } from '../store/result-store.ts';
import type { Example } from '../types.ts';
import type { CheckpointPolicy } from './policy.ts';
import type { ProgressSink } from './progress.ts';
import { SCHEDULES, type ScheduleName } from './schedule.ts';
import { FINETUNE_METHODS, TRAINING_DEFAULTS } from './option-table.ts';
import { objectiveNamed, OBJECTIVES, type Objective } from './option-table.ts';
import type { LossWeighting, Truncation } from '../tasks/protocol.ts';
import type { LogEntry } from './checkpoints.ts';

export interface TrainOptions {
  /** A Hugging Face model folder (the base model). */
  model: string;
  /** Where checkpoint-N folders go. */
  outDir: string;
  task: TaskSpec;
  train: readonly Example[];
  /** A name for the training data (the store's training_set). */
  dataName?: string;
  /**
   * label-token: study A's last-position label loss; supervised: study B's objective (prompt +
   * output + EOS, the loss on the output and EOS), which study B used for its classification tasks
   * too. Default: label-token for a classify task, supervised for a generate task. (The old
   * spellings classify and generate are read, with a note.)
   */
  objective?: Objective;
  /** The label-token objective's target: the label's first token in context (default) or tokenised alone. */
  labelTokens?: LabelTokenRule;
  /**
   * Labels the label-token objective trains toward a fixed token id rather than their word's token
   * (study A's replayed MNLI neutral rows: id 1); such a label need not be one of the task's.
   */
  labelTokenIds?: Readonly<Record<string, number>>;
  /** The label-token objective read at position padTo - 1 of rows right-padded to padTo tokens (study A's predecessor: 128). */
  padTo?: number;
  /** FTICL: demonstrations prepended to every training example. */
  demonstrations?: { pool: readonly Example[]; selection: DemonstrationSelection };
  join?: JoinOptions;
  method: (typeof FINETUNE_METHODS)[number];
  lora?: LoraConfig;
  /** LoRA: also write the merged model into each checkpoint's merged/ folder. */
  mergeLora?: boolean;
  lr: number;
  weightDecay?: number;
  betas?: [number, number];
  adamEps?: number;
  schedule?: ScheduleName;
  warmupSteps?: number;
  warmupRatio?: number;
  batchSize?: number;
  gradAccum?: number;
  /**
   * The model's own dropout (config.json: GPT-2 *_pdrop, OPT dropout, attention_dropout) while training, as transformers' train mode.
   * Default true.
   */
  modelDropout?: boolean;
  /** Global-norm clipping; 0 turns it off. Default 1 (Trainer's max_grad_norm). */
  maxGradNorm?: number;
  epochs?: number;
  /** Overrides epochs when > 0. */
  maxSteps?: number;
  seed?: number;
  shuffle?: boolean;
  /** Train on this many examples: the first N, or N sampled with subsetSeed. */
  trainSize?: number;
  subsetSeed?: number;
  /** Longest training sequence in tokens (default: the model's). */
  maxLength?: number;
  /** Supervised sequences over maxLength: keep-target keeps their last tokens (default), keep-first their first (study B's train.py). */
  truncation?: Truncation;
  /** How micro-batches' target tokens are weighed in a step (step.ts); default step-tokens. */
  lossWeighting?: LossWeighting;
  /** Notes on what was done to the data (e.g. how many examples truncation left without a target). */
  log?: (line: string) => void;
  checkpoints?: CheckpointPolicy;
  /** Log every N steps (store and progress). Default 1. */
  logEvery?: number;
  /** Continue from the last checkpoint in outDir when there is one (default true). */
  resume?: boolean;
  store?: ResultStore;
  run?: string;
  progress?: ProgressSink;
  /** Called after every optimiser step (after any checkpoint of that step is written). */
  onStep?: (entry: LogEntry) => void;
  /**
   * Called after each checkpoint is written, with the live model at that step (LoRA: the base with
   * the adapters attached, no dropout), e.g. to evaluate along the way without reloading.
   */
  onCheckpoint?: (info: { step: number; dir: string; model: BuiltinModel }) => Promise<void> | void;
}

export type ResolvedOptions = Required<Pick<TrainOptions, 'weightDecay' | 'betas' | 'adamEps' | 'schedule' | 'warmupSteps' | 'warmupRatio' |
  'batchSize' | 'gradAccum' | 'maxGradNorm' | 'epochs' | 'seed' | 'shuffle' | 'logEvery' | 'resume' | 'mergeLora' | 'modelDropout'>> &
  TrainOptions & { objective: Objective };

/** The run's objective: the one given (an old spelling read with a note), else the task kind's. */
function objectiveOf(o: TrainOptions): Objective {
  if (o.objective === undefined) return o.task.kind === 'classify' ? 'label-token' : 'supervised';
  const named = objectiveNamed(o.objective, 'training options: objective');
  if (named === undefined) throw new UserError(`objective: expected one of ${OBJECTIVES.join(', ')}, got "${String(o.objective)}"`);
  return named;
}

function positiveInt(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 1) throw new UserError(`${what}: expected a whole number >= 1, got ${v}`);
}

export function resolveOptions(o: TrainOptions): ResolvedOptions {
  const r: ResolvedOptions = {
    ...TRAINING_DEFAULTS, betas: [0.9, 0.999], adamEps: 1e-8,
    ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
    objective: objectiveOf(o),
  } as ResolvedOptions;
  if (!(r.lr > 0) || !Number.isFinite(r.lr)) throw new UserError(`learning rate: expected a positive number, got ${r.lr}`);
  if (!(r.weightDecay >= 0)) throw new UserError(`weight decay: expected a number >= 0, got ${r.weightDecay}`);
  if (!SCHEDULES.includes(r.schedule)) throw new UserError(`schedule: expected one of ${SCHEDULES.join(', ')}, got "${r.schedule}"`);
  positiveInt(r.batchSize, 'batch size');
  positiveInt(r.gradAccum, 'gradient accumulation steps');
  positiveInt(r.logEvery, 'log every');
  if (r.maxSteps === undefined || r.maxSteps <= 0) {
    if (!(r.epochs > 0) || !Number.isInteger(r.epochs)) throw new UserError(`epochs: expected a whole number >= 1, got ${r.epochs}`);
  } else positiveInt(r.maxSteps, 'max steps');
  if (!(r.maxGradNorm >= 0)) throw new UserError(`max grad norm: expected a number >= 0 (0 = no clipping), got ${r.maxGradNorm}`);
  if (r.method !== 'full' && r.method !== 'lora') throw new UserError(`method: expected "full" or "lora", got "${String(r.method)}"`);
  if (r.method === 'lora' && !r.lora) throw new UserError('method "lora" needs LoRA settings (r, alpha, dropout, target modules)');
  if (r.objective === 'label-token' && r.task.kind !== 'classify') {
    throw new UserError(`objective "label-token" needs a classify task; task "${r.task.name}" is a ${r.task.kind} task`);
  }
  if (r.trainSize !== undefined) positiveInt(r.trainSize, 'training subset size');
  if (r.train.length === 0) throw new UserError('no training examples');
  if (r.store && !r.run) throw new UserError('a store was given without a run name');
  return r;
}
