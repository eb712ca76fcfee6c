// The training options, declared once: each option's kind, bounds, default and help. From this one
// table come the command-line flags of `train` (cli/training-flags.ts), the fields a study file's
// method takes (config/schema.ts) and the trainer's defaults (options.ts, resolveOptions), so the
// three cannot drift apart; LoRA's r / alpha / dropout likewise (LORA_OPTIONS). docs/train.md
// documents them. No tensors here: config/ imports this file.
import { z } from 'zod';
import { SCHEDULES } from './schedule.ts';

/** Full fine-tuning or LoRA; the first is the default. */
export const FINETUNE_METHODS = ['full', 'lora'] as const;
/** The trainer's objectives: study A's last-position label loss (classify), study B's supervised one (generate). */
export const OBJECTIVES = ['classify', 'generate'] as const;
/** The same objectives as a study file names them (study B's and study A's words), and the trainer's objective each one is. */
export const STUDY_OBJECTIVES = ['supervised', 'label-token'] as const;
export const TRAINER_OBJECTIVE = { supervised: 'generate', 'label-token': 'classify' } as const satisfies
  Record<(typeof STUDY_OBJECTIVES)[number], (typeof OBJECTIVES)[number]>;
/** builtin: genstudy's own trainer (the default, first); hf: transformers' Trainer on the same prepared examples. */
export const TRAINING_BACKENDS = ['builtin', 'hf'] as const;
/** The families a tiny model can be initialised from scratch in (`--init`, a study model's `init`). */
export const INIT_FAMILIES = ['gpt2', 'llama'] as const;
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

type Bounds = { min?: number; max?: number; /** strictly above min */ minOpen?: boolean };
type Kind =
  | ({ kind: 'number'; default?: number } & Bounds)
  | ({ kind: 'integer'; default?: number } & Bounds)
  | { kind: 'choice'; choices: readonly [string, ...string[]]; default: string }
  | { kind: 'boolean'; default: boolean };

/**
 * `flag`: the command-line name when it is not the option's name in kebab-case (a boolean's flag is
 * the switch that turns its default around, e.g. --no-shuffle). `study`: the study file's field
 * name (`true`: the option's own), with its default (`'optional'`: without one, because the study's
 * protocol or the trainer decides); absent: not a study-file field.
 */
export type TrainingOptionSpec = Kind & { help: string; metavar?: string; flag?: string; required?: boolean;
  study?: true | 'optional' | { name: string } };

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
  maxGradNorm: { kind: 'number', default: 1, min: 0, metavar: 'x', study: 'optional', help: 'global-norm clipping (0: off)' },
  epochs: { kind: 'integer', default: 1, min: 1, metavar: 'n', study: 'optional', help: 'passes over the training data' },
  maxSteps: { kind: 'integer', min: 1, flag: 'steps', metavar: 'n', study: { name: 'steps' }, help: 'optimiser steps (overrides --epochs)' },
  seed: { kind: 'integer', default: 42, min: 0, metavar: 'n', help: 'seed of data order, LoRA init and dropout' },
  shuffle: { kind: 'boolean', default: true, flag: 'no-shuffle', help: 'keep the file order' },
  modelDropout: { kind: 'boolean', default: true, flag: 'no-model-dropout',
    help: "turn off the model's own dropout (config.json rates), which training applies by default as transformers does" },
  trainSize: { kind: 'integer', min: 1, metavar: 'n', help: 'train on N examples (the first N, or sampled with --subset-seed)' },
  subsetSeed: { kind: 'integer', min: 0, metavar: 'n', help: 'sample the --train-size examples with this seed' },
  maxLength: { kind: 'integer', min: 2, metavar: 'n', help: "longest training sequence in tokens (default: the model's)" },
  logEvery: { kind: 'integer', default: 1, min: 1, metavar: 'n', help: 'log every N steps' },
  resume: { kind: 'boolean', default: true, flag: 'no-resume',
    help: 'start afresh even when --out has checkpoints (they are replaced as the run reaches them)' },
  mergeLora: { kind: 'boolean', default: false, flag: 'merge', help: 'LoRA: also write the merged model into each checkpoint (checkpoint-N/merged)' },
} as const satisfies Record<string, TrainingOptionSpec>;

/** LoRA's settings (the study file's `lora:`, the `--lora-*` flags, and a study method's defaults). */
export const LORA_OPTIONS = {
  r: { kind: 'integer', default: 8, min: 1, metavar: 'r', flag: 'lora-r', study: true, help: 'LoRA rank' },
  alpha: { kind: 'number', default: 32, min: 0, minOpen: true, metavar: 'a', flag: 'lora-alpha', study: true, help: 'LoRA alpha' },
  dropout: { kind: 'number', default: 0.1, min: 0, max: 1, metavar: 'p', flag: 'lora-dropout', study: true, help: 'LoRA dropout' },
} as const satisfies Record<string, TrainingOptionSpec>;

type Options = typeof TRAINING_OPTIONS;
type Lora = typeof LORA_OPTIONS;

type ValueOf<S> = S extends { kind: 'choice'; choices: readonly (infer C)[] } ? C
  : S extends { kind: 'number' | 'integer' } ? number
  : S extends { kind: 'boolean' } ? boolean : never;
type WithDefault<T> = { [K in keyof T]: T[K] extends { default: unknown } ? K : never }[keyof T];

/** Every training option that has a default, at it. */
export type TrainingDefaults = { [K in WithDefault<Options>]: ValueOf<Options[K]> };

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The command-line flag of an option, without the dashes. */
export const flagOf = (name: string, spec: TrainingOptionSpec): string => spec.flag ?? kebab(name);

function defaultsOf<T extends Record<string, TrainingOptionSpec>>(table: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(table).filter(([, s]) => 'default' in s && s.default !== undefined).map(([k, s]) => [k, s.default]));
}
export const TRAINING_DEFAULTS = defaultsOf(TRAINING_OPTIONS) as TrainingDefaults;
export const LORA_DEFAULTS = defaultsOf(LORA_OPTIONS) as { [K in keyof Lora]: ValueOf<Lora[K]> };

function zodOf(spec: TrainingOptionSpec): z.ZodType {
  let s: z.ZodType;
  if (spec.kind === 'choice') s = z.enum(spec.choices);
  else if (spec.kind === 'boolean') s = z.boolean();
  else {
    let n = spec.kind === 'integer' ? z.number().int() : z.number();
    if (spec.min !== undefined) n = spec.minOpen ? n.gt(spec.min) : n.min(spec.min);
    if (spec.max !== undefined) n = n.max(spec.max);
    s = n;
  }
  return spec.study !== 'optional' && 'default' in spec && spec.default !== undefined ? s.default(spec.default as never) : s.optional();
}

type StudyName<K, S> = S extends { study: { name: infer N extends string } } ? N : K;
type InStudy<T> = { [K in keyof T]: T[K] extends { study: unknown } ? K : never }[keyof T];
type StudyZod<S> = S extends { study: 'optional' } ? z.ZodOptional<z.ZodType<ValueOf<S>>>
  : S extends { default: unknown } ? z.ZodDefault<z.ZodType<ValueOf<S>>> : z.ZodOptional<z.ZodType<ValueOf<S>>>;
type StudyShape<T> = { [K in InStudy<T> as StudyName<K, T[K]>]: StudyZod<T[K]> };

function studyShapeOf<T extends Record<string, TrainingOptionSpec>>(table: T): StudyShape<T> {
  return Object.fromEntries(Object.entries(table).filter(([, s]) => s.study !== undefined)
    .map(([k, s]) => [typeof s.study === 'object' ? s.study.name : k, zodOf(s)])) as StudyShape<T>;
}

/** The zod fields a study file's method takes from the table (config/schema.ts adds the study's own). */
export const TRAINING_STUDY_FIELDS = studyShapeOf(TRAINING_OPTIONS);
/** The zod fields of a study method's `lora:`. */
export const LORA_STUDY_FIELDS = studyShapeOf(LORA_OPTIONS);
