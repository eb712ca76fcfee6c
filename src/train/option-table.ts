// The training options, declared once: each option's kind, bounds, default and help, as an option
// table (src/option-table.ts). From this one table come the command-line flags of `train`
// (cli/training-flags.ts), the fields a study file's method takes (config/schema.ts) and the
// trainer's defaults (options.ts, resolveOptions), so the three cannot drift apart; LoRA's r /
// alpha / dropout likewise (LORA_OPTIONS). docs/train.md documents them. `train`'s hf backend
// launch flags are a table here too (HF_LAUNCH_OPTIONS). No tensors here: config/ imports this file.
import { z } from 'zod';
import { defaultsOf, zodOf, type Defaults, type OptionSpec, type OptionTable, type ValueOf, type ZodOf } from '../option-table.ts';
import { SCHEDULES } from './schedule.ts';
import { currentSpelling } from '../old-spellings.ts';

/** Full fine-tuning or LoRA; the first is the default. */
export const FINETUNE_METHODS = ['full', 'lora'] as const;
/**
 * The training objectives, one name from the study file (a method's `objective`) through `train
 * --objective` to the trainer and the run's record: study A's last-position label loss
 * (label-token), study B's prompt + output + EOS with the loss on the output (supervised).
 */
export const OBJECTIVES = ['label-token', 'supervised'] as const;
export type Objective = (typeof OBJECTIVES)[number];
/**
 * The trainer's earlier names of the objectives. `train --objective` and a library caller may still
 * write them (read with a note); a checkpoint's fingerprint and the hf backend's run.json keep them,
 * so that runs written before the rename still resume.
 */
export const STORED_OBJECTIVE = { 'label-token': 'classify', supervised: 'generate' } as const satisfies Record<Objective, string>;
/** The objective `value` names, its old spelling (STORED_OBJECTIVE's) read with a note naming `where`; undefined when it names none. */
export function objectiveNamed(value: string, where: string): Objective | undefined {
  const old = Object.fromEntries(Object.entries(STORED_OBJECTIVE).map(([now, stored]) => [stored, now as Objective]));
  const v = currentSpelling(value, old, where);
  return (OBJECTIVES as readonly string[]).includes(v) ? v as Objective : undefined;
}
/** builtin: genstudy's own trainer (the default, first); hf: transformers' Trainer on the same prepared examples. */
export const TRAINING_BACKENDS = ['builtin', 'hf'] as const;
/**
 * The families a tiny model can be initialised from scratch in (`--init`, a study model's `init`):
 * the engine registry's list (engine/builtin/registry.ts), which runs nothing when imported.
 */
export { INIT_FAMILIES } from '../engine/index.ts';
/** A model initialised from scratch: its shape unless one is given (`--init-*`, a study model's `init`, init.ts). */
export const INIT_SHAPE_DEFAULTS = { layers: 2, hidden: 64, heads: 4 } as const;
/** How the hf backend's Trainer is started from a study (SLURM: genstudy itself runs inside the allocation). */
export const STUDY_LAUNCHERS = ['accelerate', 'torchrun', 'python'] as const;
/** ... and from `genstudy train`, which can also write and submit a SLURM batch script. */
export const LAUNCHERS = [...STUDY_LAUNCHERS, 'slurm'] as const;
/** The hf backend's launch when none is said (a study's `hf:`, `train --launcher / --processes`, train/hf/). */
export const HF_LAUNCH_DEFAULTS = { launcher: 'accelerate', processes: 1 } as const satisfies {
  launcher: (typeof STUDY_LAUNCHERS)[number]; processes: number;
};

/**
 * An option table's spec (src/option-table.ts), and `study`: the study file's field name (`true`:
 * the option's own), with its default (`'optional'`: without one, because the study's protocol or
 * the trainer decides); absent: not a study-file field.
 */
export type TrainingOptionSpec = OptionSpec & { study?: true | 'optional' | { name: string } };

export const TRAINING_OPTIONS = {
  lr: { kind: 'number', min: 0, minOpen: true, required: true, metavar: 'lr', study: 'optional', help: 'peak learning rate' },
  weightDecay: { kind: 'number', default: 0, min: 0, metavar: 'wd', study: true,
    help: 'AdamW decoupled weight decay (not on biases and norm weights)' },
  schedule: { kind: 'choice', choices: SCHEDULES, default: 'linear', metavar: 'name', study: true, help: 'learning-rate schedule after warmup' },
  warmupSteps: { kind: 'integer', default: 0, min: 0, metavar: 'n', help: 'warmup steps' },
  warmupRatio: { kind: 'number', default: 0, min: 0, max: 1, metavar: 'r', study: true,
    help: 'warmup as a share of all steps (used when --warmup-steps is 0)' },
  batchSize: { kind: 'integer', default: 8, min: 1, metavar: 'n', study: true, help: 'examples per micro-batch' },
  gradAccum: { kind: 'integer', default: 1, min: 1, metavar: 'n', study: true, help: 'micro-batches per optimiser step' },
  // A study method's maxGradNorm is the protocol setting's (tasks/protocol.ts): its default is the protocol's.
  maxGradNorm: { kind: 'number', default: 1, min: 0, metavar: 'x', help: 'global-norm clipping (0: off)' },
  epochs: { kind: 'integer', default: 1, min: 1, metavar: 'n', study: 'optional', help: 'passes over the training data' },
  maxSteps: { kind: 'integer', min: 1, flag: 'steps', metavar: 'n', study: { name: 'steps' }, help: 'optimiser steps (overrides --epochs)' },
  seed: { kind: 'integer', default: 42, min: 0, metavar: 'n', help: 'seed of data order, LoRA init and dropout' },
  shuffle: { kind: 'boolean', default: true, help: 'shuffle the training examples (seeded by --seed)', off: 'keep the file order' },
  modelDropout: { kind: 'boolean', default: true, help: "apply the model's own dropout (config.json rates) in training, as transformers does",
    off: "turn off the model's own dropout (config.json rates), which training applies by default as transformers does" },
  trainSize: { kind: 'integer', min: 1, metavar: 'n', help: 'train on N examples (the first N, or sampled with --subset-seed)' },
  subsetSeed: { kind: 'integer', min: 0, metavar: 'n', help: 'sample the --train-size examples with this seed' },
  maxLength: { kind: 'integer', min: 2, metavar: 'n', help: "longest training sequence in tokens (default: the model's)" },
  logEvery: { kind: 'integer', default: 1, min: 1, metavar: 'n', help: 'log every N steps' },
  resume: { kind: 'boolean', default: true, help: 'resume from the last checkpoint in --out',
    off: 'start afresh even when --out has checkpoints (they are replaced as the run reaches them)' },
  mergeLora: { kind: 'boolean', default: false, flag: 'merge', help: 'LoRA: also write the merged model into each checkpoint (checkpoint-N/merged)' },
} as const satisfies Record<string, TrainingOptionSpec>;

/** LoRA's settings (the study file's `lora:`, the `--lora-*` flags, and a study method's defaults). */
export const LORA_OPTIONS = {
  r: { kind: 'integer', default: 8, min: 1, metavar: 'r', flag: 'lora-r', study: true, help: 'LoRA rank' },
  alpha: { kind: 'number', default: 32, min: 0, minOpen: true, metavar: 'a', flag: 'lora-alpha', study: true, help: 'LoRA alpha' },
  dropout: { kind: 'number', default: 0.1, min: 0, max: 1, metavar: 'p', flag: 'lora-dropout', study: true, help: 'LoRA dropout' },
} as const satisfies Record<string, TrainingOptionSpec>;

/**
 * `train`'s flags that only the hf backend reads (refused with the built-in trainer); command-line
 * only: a study's `hf:` section is config/schema.ts's HfLaunchSchema.
 */
export const HF_LAUNCH_OPTIONS = {
  launcher: { kind: 'choice', choices: LAUNCHERS, metavar: 'name',
    help: `hf: how to start the Trainer (default ${HF_LAUNCH_DEFAULTS.launcher}; slurm writes and submits a batch script)` },
  python: { kind: 'string', metavar: 'exe',
    help: 'hf: the Python with torch, transformers, peft, accelerate (default: $GENSTUDY_PYTHON, else python3)' },
  processes: { kind: 'integer', min: 1, metavar: 'n',
    help: `hf: processes (GPUs; default ${HF_LAUNCH_DEFAULTS.processes}); global batch = --batch-size x --grad-accum, spread over them` },
  accelerateConfig: { kind: 'string', metavar: 'file', help: 'hf: accelerate\'s config file (multi-GPU, DeepSpeed ZeRO, FSDP)' },
  launcherArg: { kind: 'list', metavar: 'arg...', help: 'hf: more arguments for accelerate launch / torchrun' },
  sbatch: { kind: 'list', metavar: 'directive...', help: 'hf, slurm: more #SBATCH directives, e.g. partition=gpu time=24:00:00' },
  submit: { kind: 'boolean', default: true, help: 'hf, slurm: submit the batch script it writes',
    off: 'hf, slurm: write the batch script without submitting it' },
  bf16: { kind: 'boolean', default: false, help: 'hf: bf16 mixed precision (TrainingArguments bf16)' },
  trainingArgs: { kind: 'string', metavar: 'json',
    help: 'hf: more TrainingArguments as JSON (e.g. {"gradient_checkpointing": true}); genstudy\'s own settings are refused here' },
  acceptCheckpointGaps: { kind: 'boolean', default: false,
    help: 'hf: allow save_total_limit in --training-args (the Trainer deletes older checkpoints, which may go unevaluated)' },
} as const satisfies OptionTable;

/** Every training option that has a default, at it. */
export type TrainingDefaults = Defaults<typeof TRAINING_OPTIONS>;

export const TRAINING_DEFAULTS: TrainingDefaults = defaultsOf(TRAINING_OPTIONS);
export const LORA_DEFAULTS: Defaults<typeof LORA_OPTIONS> = defaultsOf(LORA_OPTIONS);

type StudyName<K, S> = S extends { study: { name: infer N extends string } } ? N : K;
type InStudy<T> = { [K in keyof T]: T[K] extends { study: unknown } ? K : never }[keyof T];
type StudyZod<S> = S extends { study: 'optional' } ? z.ZodOptional<z.ZodType<ValueOf<S>>> : ZodOf<S>;
type StudyShape<T> = { [K in InStudy<T> as StudyName<K, T[K]>]: StudyZod<T[K]> };

function studyShapeOf<T extends Record<string, TrainingOptionSpec>>(table: T): StudyShape<T> {
  return Object.fromEntries(Object.entries(table).filter(([, s]) => s.study !== undefined)
    .map(([k, s]) => [typeof s.study === 'object' ? s.study.name : k, zodOf(s, { withDefault: s.study !== 'optional' })])) as StudyShape<T>;
}

/** The zod fields a study file's method takes from the table (config/schema.ts adds the study's own). */
export const TRAINING_STUDY_FIELDS = studyShapeOf(TRAINING_OPTIONS);
/** The zod fields of a study method's `lora:`. */
export const LORA_STUDY_FIELDS = studyShapeOf(LORA_OPTIONS);
