// genstudy train: fine-tune a Hugging Face model (full or LoRA) on a data set or on the synthetic
// suite, writing checkpoint-N folders along the way; --init trains a tiny model from scratch. This
// file parses the flags into a TrainRequest and prints the result; pipeline/train-request.ts trains
// it, through the trainRun a study's runs go through.
import { Command, InvalidArgumentError, Option } from 'commander';
import { UserError } from '../errors.ts';
import { numberIn, wholeNumber } from './flag-values.ts';
import { addDataDirOption, addFormatOption, addSyntheticOptions, storeOption } from './shared-options.ts';
import { formatTextTable } from '../text-table.ts';
import { TASK_PRESET_NAMES } from '../tasks/index.ts';
import { defaultLoraTargetsInWords } from '../engine/index.ts';
import { FINETUNE_METHODS, HF_LAUNCH_DEFAULTS, INIT_FAMILIES, INIT_SHAPE_DEFAULTS, OBJECTIVES, TRAINING_BACKENDS, LORA_OPTIONS,
  HF_LAUNCH_OPTIONS, objectiveNamed, progressSink, TRAINING_OPTIONS, type Objective } from '../train/index.ts';
import { addTrainingFlags, trainingSettingsFromFlags } from './training-flags.ts';
import { flagsGiven } from './option-flags.ts';
import type { Launcher } from '../train/hf/index.ts';
import { trainRequested, type TrainRequest, type TrainRequestSettings } from '../pipeline/train-request.ts';
import type { TrainRunResult } from '../pipeline/train-run.ts';
import { count } from './count.ts';

interface TrainFlags {
  model?: string; init?: (typeof INIT_FAMILIES)[number]; initHidden: string; initLayers: string;
  data: string; syntheticSeed: string; syntheticSize: string; dataDir?: string; format: 'table' | 'json';
  task?: string; prompt: string; objective?: Objective;
  fticlK?: string; fticlPool?: string; fticlSeed?: string;
  method: (typeof FINETUNE_METHODS)[number]; loraTargets?: string;
  saveEvery?: string; saveLogSpaced?: string; saveStart: boolean;
  out: string; store?: string; run?: string;
  backend: (typeof TRAINING_BACKENDS)[number]; launcher?: Launcher; python?: string; processes?: string; accelerateConfig?: string;
  launcherArg?: string[]; sbatch?: string[]; submit?: boolean; bf16?: boolean; trainingArgs?: string; acceptCheckpointGaps?: boolean;
}

function trainingArgsOf(f: TrainFlags): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> = {};
  if (f.trainingArgs !== undefined) {
    try {
      extra = JSON.parse(f.trainingArgs) as Record<string, unknown>;
    } catch (err) {
      throw new UserError(`--training-args: not JSON (${(err as Error).message}); e.g. '{"gradient_checkpointing": true}'`);
    }
    if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
      throw new UserError('--training-args: expected a JSON object of TrainingArguments fields');
    }
  }
  if (f.bf16) extra = { ...extra, bf16: true };
  return Object.keys(extra).length ? extra : undefined;
}

/** --objective's value: one of OBJECTIVES, or its old spelling (classify, generate) read with a note. */
function objectiveFlag(value: string): Objective {
  const objective = objectiveNamed(value, '--objective');
  if (objective === undefined) throw new InvalidArgumentError(`Allowed choices are ${OBJECTIVES.join(', ')}.`);
  return objective;
}

/** Numeric flags: whole numbers (int) or any number, from `min`; the message names the range. */
function num(flag: string, v: string | undefined, opts: { int?: boolean; min?: number; max?: number } = {}): number | undefined {
  return opts.int
    ? wholeNumber(flag, v, { min: opts.min ?? Number.MIN_SAFE_INTEGER, max: opts.max })
    : numberIn(flag, v, { min: opts.min, max: opts.max });
}

export function registerTrain(program: Command): void {
  const command = program
    .command('train')
    .description('Fine-tune a model (full or LoRA) with checkpoints along the way; resumes from the last checkpoint in --out')
    .option('--model <dir>', 'base model: a Hugging Face folder (config.json, model.safetensors, tokenizer.json); or --init')
    .addOption(new Option('--init <family>',
      'instead of --model: a tiny randomly initialised model trained from scratch (with --data synthetic)').choices(INIT_FAMILIES))
    .option('--init-hidden <n>', 'hidden size of the --init model', String(INIT_SHAPE_DEFAULTS.hidden))
    .option('--init-layers <n>', 'layers of the --init model', String(INIT_SHAPE_DEFAULTS.layers))
    .requiredOption('--data <spec>', 'training data: a registered id such as study-b/sentiment/amazon:train-2000, a data set spec file ' +
      '(YAML/JSON), or synthetic (the generated suite)');
  addSyntheticOptions(command, 'trainSize');
  addDataDirOption(command)
    .option('--task <task>',
      `prompt and labels: ${TASK_PRESET_NAMES.join(' | ')} | a task spec file (default: synthetic with --data synthetic, else study-a)`)
    .addOption(new Option('--prompt <n>', "study B's prompt: 1 or 2 (training uses one)").choices(['1', '2']).default('1'))
    .addOption(new Option('--objective <kind>', 'label-token: the label token\'s loss at the last prompt position (study A); supervised: ' +
      'prompt + output + EOS, loss on the output (study B)').choices(OBJECTIVES).argParser(objectiveFlag))
    .option('--fticl-k <k>', 'FTICL: prepend k demonstrations to every training example')
    .option('--fticl-pool <spec>', 'FTICL demonstration pool (spec file or registered id; default: the training data)')
    .option('--fticl-seed <n>', 'FTICL: sample the demonstrations per example with this seed (default: the same first k for all, as study B)')
    .addOption(new Option('--method <method>', 'full fine-tuning or LoRA').choices([...FINETUNE_METHODS]).default(FINETUNE_METHODS[0]));
  addTrainingFlags(command, LORA_OPTIONS)
    .option('--lora-targets <names>', `LoRA target modules, comma-separated (default: ${defaultLoraTargetsInWords()})`)
  // lr, schedule, batches, epochs, seed, ...: the training options' one table (train/option-table.ts).
  addTrainingFlags(command, TRAINING_OPTIONS)
    .option('--save-every <n>', 'checkpoint every N steps')
    .option('--save-log-spaced <n>', 'checkpoint at N log-spaced steps')
    .option('--no-save-start', 'no checkpoint before training')
    .requiredOption('--out <dir>', 'output folder for checkpoint-N folders')
    .addOption(storeOption({ optional: 'the training log and checkpoints are recorded there' }))
    .option('--run <name>', 'run name in the store (default: the --out folder\'s name, parent/name when that is generic such as output)')
    .addOption(new Option('--backend <name>', 'builtin: genstudy\'s own trainer (CPU); hf: transformers\' Trainer (PEFT for LoRA) on the ' +
      'same prepared examples (docs/scale.md)').choices(TRAINING_BACKENDS).default(TRAINING_BACKENDS[0]));
  // --launcher, --python, --processes, ...: the hf launch flags' one table (train/option-table.ts).
  addTrainingFlags(command, HF_LAUNCH_OPTIONS);
  addFormatOption(command)
    .action(async (f: TrainFlags & Record<string, unknown>) => {
      const result = await trainRequested(requestOf(f));
      printResult(result, f.out, f.format);
    });
}

/**
 * The request the flags make, every value checked before anything is written (a bad value leaves no
 * folder behind); the hf launch flags are refused without --backend hf.
 */
function requestOf(f: TrainFlags & Record<string, unknown>): TrainRequest {
  if (f.backend === 'builtin') {
    const stray = flagsGiven(f, HF_LAUNCH_OPTIONS); // the flags only the hf backend reads
    if (stray.length) throw new UserError(`${stray.join(', ')}: only with --backend hf`);
  }
  if (!f.model && !f.init) throw new UserError(`give the base model: --model <dir>, or --init ${INIT_FAMILIES.join('|')} to start from scratch`);
  if (f.model && f.init) throw new UserError('--model and --init exclude each other');
  const lora = trainingSettingsFromFlags(f, LORA_OPTIONS) as Pick<NonNullable<TrainRequestSettings['lora']>, 'r' | 'alpha' | 'dropout'>;
  const settings: TrainRequestSettings = {
    ...(trainingSettingsFromFlags(f, TRAINING_OPTIONS) as Omit<TrainRequestSettings, 'method'> & { lr: number; seed: number }),
    objective: f.objective,
    method: f.method,
    lora: f.method === 'lora' ? {
      ...lora, targetModules: f.loraTargets ? f.loraTargets.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    } : undefined,
    checkpoints: { atStart: f.saveStart, every: num('--save-every', f.saveEvery, { int: true, min: 1 }),
      logSpaced: num('--save-log-spaced', f.saveLogSpaced, { int: true, min: 1 }) },
  };
  const synthetic = { seed: num('--synthetic-seed', f.syntheticSeed, { int: true, min: 0 })!,
    trainSize: num('--synthetic-size', f.syntheticSize, { int: true, min: 1 })! };
  const shape = { hidden: num('--init-hidden', f.initHidden, { int: true, min: 1 }),
    layers: num('--init-layers', f.initLayers, { int: true, min: 1 }) };
  const k = num('--fticl-k', f.fticlK, { int: true, min: 1 });
  const fticlSeed = num('--fticl-seed', f.fticlSeed, { int: true, min: 0 });
  return {
    base: f.model ? { model: f.model } : { init: { family: f.init!, ...shape } },
    data: f.data, synthetic, dataDir: f.dataDir, task: f.task, prompt: Number(f.prompt) as 1 | 2,
    fticl: k === undefined ? undefined : { k, pool: f.fticlPool, seed: fticlSeed },
    settings, out: f.out, store: f.store, run: f.run,
    backend: f.backend === 'builtin' ? { kind: 'builtin' } : {
      kind: 'hf', trainingArguments: trainingArgsOf(f), acceptCheckpointGaps: f.acceptCheckpointGaps === true,
      launch: {
        launcher: f.launcher ?? HF_LAUNCH_DEFAULTS.launcher, python: f.python, processes: num('--processes', f.processes, { int: true, min: 1 }),
        accelerateConfig: f.accelerateConfig, launcherArgs: f.launcherArg, sbatch: f.sbatch, noSubmit: f.submit === false,
      },
    },
    progress: progressSink(),
  };
}

/** The checkpoints as a table on stdout (or the summary as JSON) and a line on stderr. */
function printResult(result: TrainRunResult, out: string, format: TrainFlags['format']): void {
  if (result.backend === 'hf') {
    const r = result.trained;
    const summary = {
      out, backend: 'hf', steps: r.prepared.totalSteps, finished: r.finished, finalLoss: r.log.at(-1)?.loss ?? null,
      checkpoints: r.checkpoints.map((c) => c.dir), command: r.launch.command, script: r.launch.script ?? null, jobId: r.launch.jobId ?? null,
    };
    if (format === 'json') process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else {
      process.stdout.write(formatTextTable(['step', 'checkpoint'], r.checkpoints.map((c) => [String(c.step), c.dir]), [0]));
      process.stderr.write(r.finished
        ? `genstudy: ${r.prepared.totalSteps} steps on the Trainer; final loss ${summary.finalLoss?.toFixed(4) ?? '-'}; ` +
          `${count(r.checkpoints.length, 'checkpoint')} in ${out}\n`
        : `genstudy: batch script ${r.launch.script}${r.launch.jobId ? ` submitted as job ${r.launch.jobId}` : ' written (not submitted)'}\n`);
    }
    return;
  }
  const r = result.trained;
  const last = r.log.at(-1);
  if (format === 'json') {
    process.stdout.write(JSON.stringify({
      out, steps: r.steps, resumedFrom: r.resumedFrom ?? null, finalLoss: last?.loss ?? null,
      checkpoints: r.checkpoints.map((c) => c.dir),
    }, null, 2) + '\n');
  } else {
    const lossAt = new Map(r.log.map((e) => [e.step, e.loss]));
    process.stdout.write(formatTextTable(['step', 'loss', 'checkpoint'], r.checkpoints.map((c) => [
      String(c.step), lossAt.has(c.step) ? lossAt.get(c.step)!.toFixed(4) : '-', c.dir,
    ]), [0, 1]));
  }
  process.stderr.write(`genstudy: ${r.steps} steps` +
    `${r.resumedFrom !== undefined ? ` (resumed after step ${r.resumedFrom})` : ''}; ` +
    `final loss ${last ? last.loss.toFixed(4) : '-'}; ${count(r.checkpoints.length, 'checkpoint')} in ${out}\n`);
}
