// The study file: what a study trains, evaluates and analyses, validated with zod. A study expands
// into runs (models x training sets x methods x seeds); see expand.ts.
import { z } from 'zod';
import { AnalysisOptionsSchema } from '../analyze/options.ts';
import {
  PROTOCOL_SETTING_SPECS, PROTOCOLS, protocolSettingsAt, type ProtocolSettings, type ProtocolSettingsAt,
} from '../tasks/protocol.ts';
import { zodOf } from '../option-table.ts';
import { DEFAULT_SCORING, SCORING_MODES } from '../tasks/task.ts';
import { SUITE_DEFAULTS, SUITE_DESIGNS } from '../synth/design.ts';
import { IDENTITY_CHECKS, METHOD_KINDS } from '../types.ts';
import { FINETUNE_METHODS, HF_LAUNCH_DEFAULTS, INIT_FAMILIES, INIT_SHAPE_DEFAULTS, LORA_STUDY_FIELDS, STUDY_LAUNCHERS, OBJECTIVES,
  TRAINING_BACKENDS, TRAINING_DEFAULTS, TRAINING_STUDY_FIELDS } from '../train/option-table.ts';

const positiveInt = z.number().int().min(1);

type ProtocolFields<P extends 'evaluation' | 'method'> = {
  [K in keyof ProtocolSettingsAt<P> & keyof ProtocolSettings]: z.ZodOptional<z.ZodType<Exclude<ProtocolSettings[K], undefined>>>
};

/**
 * The study-file fields of the protocol settings written at `place` (tasks/protocol.ts): each
 * optional, the study's protocol deciding when it is not written (config/settings.ts).
 */
export function protocolFields<P extends 'evaluation' | 'method'>(place: P): ProtocolFields<P> {
  return Object.fromEntries(protocolSettingsAt(place).map((k) => [k, zodOf(PROTOCOL_SETTING_SPECS[k], { withDefault: false })])) as ProtocolFields<P>;
}

type Joined<T extends readonly object[]> = T extends readonly [infer A, ...infer R extends readonly object[]] ? A & Joined<R> : unknown;

/**
 * The fields of one study-file section, gathered from where each is declared (the section's own,
 * an option table's, the protocol table's); a field declared in two of them is refused here, when
 * the schema is built, rather than one declaration silently replacing the other.
 */
export function fieldsOnce<const T extends readonly Record<string, z.ZodType>[]>(section: string, ...parts: T): Joined<T> {
  const out: Record<string, z.ZodType> = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (Object.hasOwn(out, k)) throw new Error(`study file, ${section}: the field "${k}" is declared twice`);
      out[k] = v;
    }
  }
  return out as Joined<T>;
}

/** A model: a Hugging Face folder, or a tiny model initialised from scratch (the demo). */
export const ModelSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" or "-" only'),
  path: z.string().optional(),
  /** The model's Hugging Face hub id, for the message that says how to download it. */
  hub: z.string().optional(),
  init: z.strictObject({
    family: z.enum(INIT_FAMILIES),
    layers: positiveInt.default(INIT_SHAPE_DEFAULTS.layers),
    hidden: positiveInt.default(INIT_SHAPE_DEFAULTS.hidden),
    heads: positiveInt.default(INIT_SHAPE_DEFAULTS.heads),
    /** "synthetic": the synthetic suite's word-level tokenizer; otherwise a folder with tokenizer.json. */
    tokenizer: z.string().default('synthetic'),
  }).optional(),
  /** What to try instead when `path` is missing (shown in the error). */
  smaller: z.string().optional(),
}).refine((m) => (m.path === undefined) !== (m.init === undefined), { message: 'give exactly one of path or init' });

export const SyntheticSchema = z.strictObject({
  seed: z.number().int().default(SUITE_DEFAULTS.seed),
  trainSize: positiveInt.default(SUITE_DEFAULTS.trainSize),
  testSize: positiveInt.default(SUITE_DEFAULTS.testSize),
  /**
   * classic (left out): the overlap and negation families; artifacts: the negation and place-word families with training
   * variants a and b (the demo's).
   */
  design: z.enum(SUITE_DESIGNS).optional(),
});

/** A training set: a registry id, a spec file, or "synthetic" (the suite's ID training set). */
export const TrainingSetSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._/-]+$/),
  data: z.string(),
  /** The study-B task preset or "study-a" / "synthetic"; default from the data. */
  task: z.string().optional(),
  size: positiveInt.optional(),
  /** Study B: the sets that count as in-domain for this training set. */
  inDomain: z.array(z.string()).optional(),
});

export const LoraSchema = z.strictObject({
  ...LORA_STUDY_FIELDS,
  targets: z.array(z.string()).optional(),
});

export const MethodSchema = z.strictObject(fieldsOnce('methods', {
  name: z.string().regex(/^[A-Za-z0-9._-]+$/),
  /** base: no training, evaluated with k-shot ICL; ft: fine-tuning; fticl: fine-tuning with demonstrations. */
  kind: z.enum(METHOD_KINDS),
  finetune: z.enum(FINETUNE_METHODS).default(FINETUNE_METHODS[0]),
  lora: LoraSchema.optional(),
  /**
   * The effective batch of one optimiser step over all devices (per-device batch x accumulation x
   * devices); gradAccum becomes globalBatch / batchSize. Study B: 2 per device x 8 accumulation.
   */
  globalBatch: positiveInt.optional(),
  /**
   * supervised: prompt + output + EOS, the loss on the output's tokens and EOS (study B, for its
   * classification tasks too); label-token: cross-entropy at the last prompt position against the
   * label's first token (study A). Default: supervised for study B's tasks, label-token otherwise.
   */
  objective: z.enum(OBJECTIVES).optional(),
  /**
   * FTICL: demonstrations per training example: one k, a list (one run per k), or a list per
   * training set id or task name (study B: 1 and 2 for generation, 2 and 4 for sentiment and
   * paraphrase, 3 and 5 for NLI).
   */
  demonstrations: z.union([
    z.number().int().min(1), z.array(z.number().int().min(1)).min(1), z.record(z.string(), z.array(z.number().int().min(1)).min(1)),
  ]).optional(),
  /** Base: in-context demonstrations at test time, one run per k (study B); a map gives each training set (id or task name) its own list. */
  shots: z.union([z.array(z.number().int().min(0)), z.record(z.string(), z.array(z.number().int().min(0)))]).optional(),
  /** builtin: genstudy's own trainer; hf: transformers' Trainer on the same prepared examples (the study's hf section says how to launch it). */
  backend: z.enum(TRAINING_BACKENDS).default(TRAINING_BACKENDS[0]),
},
// lr, epochs, steps, batchSize, gradAccum, weightDecay, warmupRatio and schedule, from the training
// options' one table (train/option-table.ts).
TRAINING_STUDY_FIELDS,
// maxGradNorm, lossWeighting, truncation, demonstrationPool and demonstrationSelection: protocol
// settings a method may set for itself (tasks/protocol.ts), defaulting from the study's protocol.
protocolFields('method')))
  .refine((m) => m.kind === 'base' || m.lr !== undefined, { message: 'a trained method needs lr', path: ['lr'] })
  .refine((m) => m.kind !== 'fticl' || m.demonstrations !== undefined, { message: 'fticl needs demonstrations (k >= 1)', path: ['demonstrations'] })
  .refine((m) => m.globalBatch === undefined || m.globalBatch % m.batchSize === 0,
    { message: 'globalBatch must be a multiple of batchSize', path: ['globalBatch'] });

/** How the hf backend is launched (docs/scale.md); SLURM: run genstudy itself inside the allocation. */
export const HfLaunchSchema = z.strictObject({
  launcher: z.enum(STUDY_LAUNCHERS).default(HF_LAUNCH_DEFAULTS.launcher),
  /** The Python with torch, transformers, peft and accelerate (default: $GENSTUDY_PYTHON, else python3). */
  python: z.string().optional(),
  processes: positiveInt.default(HF_LAUNCH_DEFAULTS.processes),
  /** accelerate's config file (DeepSpeed ZeRO, FSDP), relative to the study file. */
  accelerateConfig: z.string().optional(),
  /** More TrainingArguments (e.g. bf16: true, gradient_checkpointing: true); genstudy's own settings are refused. */
  trainingArguments: z.record(z.string(), z.unknown()).optional(),
  /** Allow save_total_limit (the Trainer deletes older checkpoints; those not evaluated in time are reported missing). */
  acceptCheckpointGaps: z.boolean().default(false),
});

export const CheckpointSchema = z.strictObject({
  atStart: z.boolean().default(true),
  every: positiveInt.optional(),
  logSpaced: positiveInt.optional(),
  atEnd: z.boolean().default(true),
});

export const EvaluationSchema = z.strictObject(fieldsOnce('evaluation', {
  /** The in-domain test set: the control of study A's analysis (none: no partial correlations, e.g. study B). */
  control: z.string().optional(),
  testSets: z.array(z.string()).min(1),
  task: z.string().optional(),
  scoring: z.enum(SCORING_MODES).default(DEFAULT_SCORING),
  limit: positiveInt.optional(),
  prompts: z.array(z.union([z.literal(1), z.literal(2)])).optional(),
  /** Evaluate through OpenAI-compatible servers instead of the built-in engine (as evaluate --remote). */
  remote: z.strictObject({
    urls: z.array(z.string()).min(1),
    /** The served model's name for full checkpoints (default: the one the server lists). */
    model: z.string().optional(),
    /** Seconds before a request is given up (then retried); default the remote engine's (REMOTE_DEFAULTS). */
    timeout: z.number().positive().optional(),
    /** Tries after the first for a failed request; default the remote engine's (REMOTE_DEFAULTS). */
    retries: z.number().int().min(0).optional(),
    /** Seconds a server refusing connections may take to start (GET /health waited on); default the remote engine's (REMOTE_DEFAULTS). */
    startupSeconds: z.number().min(0).optional(),
    /** How a server that does not report its weights (vLLM) is matched with each checkpoint (docs/remote.md). */
    identity: z.enum(IDENTITY_CHECKS).optional(),
  }).optional(),
  /** The k of the every-k grid per test-set task (default: study B's, evaluate_cross.py). */
  shots: z.record(z.string(), z.array(z.number().int().min(0)).min(1)).optional(),
  /**
   * Servers genstudy starts itself, one model folder at a time ({model}: the checkpoint, or a LoRA
   * adapter's base; {port}: a free port), e.g. "vllm serve {model} --port {port} --enable-lora":
   * full fine-tuned checkpoints each get their own server.
   */
  serve: z.strictObject({
    command: z.union([z.string().transform((s) => s.split(/\s+/).filter(Boolean)), z.array(z.string()).min(1)]),
    startupSeconds: positiveInt.default(1200),
  }).optional(),
},
// labelTokens, bos, unlabeledRows, rouge, grid, gridRunShots, zeroShotPrefix, positiveLabel,
// readingPosition, studyAMnliNeutral: the protocol settings written here (tasks/protocol.ts, docs/studies.md),
// each defaulting from the study's protocol.
protocolFields('evaluation')))
  .refine((e) => !(e.remote && e.serve),
  { message: 'give remote (servers already running) or serve (servers genstudy starts), not both', path: ['serve'] });

/** The study's `analysis:` section: the metric, and the analysis options declared once in analyze/options.ts. */
export const AnalysisSchema = AnalysisOptionsSchema.extend({
  metric: z.string().default('accuracy'),
});

export const StudySchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/),
  description: z.string().optional(),
  /** Where the store, checkpoints and report go, relative to the study file (default: <name>/ beside it). */
  out: z.string().optional(),
  /** official: replay the released code of the study; corrected: genstudy's version. Single settings can be overridden. */
  protocol: z.enum(PROTOCOLS).default('corrected'),
  dataDir: z.string().optional(),
  synthetic: SyntheticSchema.optional(),
  models: z.array(ModelSchema).min(1),
  training: z.array(TrainingSetSchema).min(1),
  methods: z.array(MethodSchema).min(1),
  seeds: z.array(z.number().int()).min(1).default([TRAINING_DEFAULTS.seed]),
  checkpoints: CheckpointSchema.prefault({}),
  hf: HfLaunchSchema.prefault({}),
  evaluation: EvaluationSchema,
  analysis: AnalysisSchema.prefault({}),
}).superRefine((study, ctx) => {
  // Run ids and folders are built from these names, so two entries with one name would be one run.
  for (const [list, key] of [['models', 'id'], ['training', 'id'], ['methods', 'name']] as const) {
    const first = new Map<string, number>();
    (study[list] as { [k in typeof key]?: string }[]).forEach((entry, i) => {
      const name = entry[key]!;
      if (first.has(name)) {
        const message = `"${name}" is also ${list}[${first.get(name)}]'s ${key}; give each a distinct ${key}`;
        ctx.addIssue({ code: 'custom', path: [list, i, key], message });
      }
      else first.set(name, i);
    });
  }
});

export type Study = z.infer<typeof StudySchema>;
export type StudyModel = z.infer<typeof ModelSchema>;
export type StudyMethod = z.infer<typeof MethodSchema>;
export type StudyTrainingSet = z.infer<typeof TrainingSetSchema>;
