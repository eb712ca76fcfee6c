// One run of a study: its runs row, its training data, the grid its checkpoints are evaluated on
// (the study rules of config/settings.ts), and its training on the method's backend; a base
// method is evaluated once, untrained.
import path from 'node:path';
import type { RunPlan } from '../config/expand.ts';
import type { Study } from '../config/schema.ts';
import {
  evaluationCellsFor, gradAccumOf, isStudyAOnly, readingRulesOf, trainerSettingsOf, type StudySettings,
} from '../config/settings.ts';
import { defaultLoraTargetsOf } from '../engine/index.ts';
import {
  discoverCheckpoints, evaluateGrid, promptVariants, resolveTask, type EvalTestSet, type GridOptions, type ProgressSink as EvalProgress,
} from '../evaluate/index.ts';
import type { ResultStore, RunRecord } from '../store/result-store.ts';
import { taskShortName } from '../tasks/index.ts';
import { LORA_DEFAULTS, type ProgressSink as TrainProgress, type TrainOptions } from '../train/index.ts';
import type { ModelLoader } from '../types.ts';
import { studyModelDir } from './model-preparation.ts';
import type { StudyStages } from './study-progress.ts';
import { trainRun, type TrainBackend } from './train-run.ts';
import { fticlDemonstrations, loadTrainingExamples } from './training-data.ts';
import { studyVersions } from './versions.ts';

/** Training log granularity (store and progress lines): fine enough for the loss curve, quiet enough to read. */
const LOG_EVERY = 5;

export interface RunContext {
  studyFile: string; storePath: string; runsDir: string; modelsDir: string;
  studyDir: string; dataDir?: string; suiteDir?: string; testSets: EvalTestSet[]; settings: StudySettings;
  log: (line: string) => void;
  trainProgress?: TrainProgress; evalProgress?: EvalProgress; stages?: StudyStages;
  /** Model work done so far: answers computed and taken from the cache, optimiser steps taken (runStudy counts the models loaded). */
  work: { answersComputed: number; answersCached: number; trainingSteps: number };
  /** evaluation.remote's servers, or the ones evaluation.serve starts; else the built-in engine (undefined). */
  loader?: ModelLoader;
  /** The study's one handle on its results store. */
  store: ResultStore;
}

export async function executeRun(study: Study, run: RunPlan, ctx: RunContext): Promise<void> {
  const modelDir = await studyModelDir(run.model, { studyDir: ctx.studyDir, suiteDir: ctx.suiteDir, modelsDir: ctx.modelsDir });
  const { method } = run;
  const { settings } = ctx;
  const runRecord: RunRecord = {
    // The report's study-B matrices read the method kind (base / ft / fticl) from runs.method.
    id: run.id, model: run.model.id, trainingSet: run.trainingSet.id, method: method.kind, seed: run.seed,
    studyFile: ctx.studyFile, versions: studyVersions(),
    attributes: {
      method_name: method.name, finetune: method.kind === 'base' ? null : method.finetune,
      // Only a training set with an explicit task takes part in study B's task x test set matrices.
      training_task: taskShortName(run.trainingSet.task), control_test_set: study.evaluation.control,
      shots: run.shots, prompt_variant: reportedVariant(study, settings, run.shots), train_size: run.trainingSet.size,
      study: study.name,
    },
  };
  // Everything that can fail on the study's input is read before the run is recorded, so a bad
  // study leaves no runs row behind.
  const training = method.kind === 'base' ? undefined
    : await loadTrainingExamples(run.trainingSet,
      { studyDir: ctx.studyDir, dataDir: ctx.dataDir, suiteDir: ctx.suiteDir, replayBugs: settings.studyAMnliNeutral === 'keep-as-bug' });
  if (training?.replayed) {
    const { bug, kept } = training.replayed;
    ctx.log(`genstudy: ${run.id}: training set "${run.trainingSet.id}": ${kept} ${bug.label} rows kept ` +
      `and trained toward token id ${bug.trainTokenId} ` +
      `(studyAMnliNeutral: keep-as-bug, a replayed bug of ${bug.source})`);
  }
  recordRun(ctx.store, runRecord);

  const studyAOnly = isStudyAOnly(study, ctx.testSets.map((t) => t.taskPreset));
  const variantsOf = (set: EvalTestSet) => {
    const cells = evaluationCellsFor(study, settings, run.shots, set.taskPreset);
    return promptVariants(cells.prompts, cells.shots);
  };
  ctx.testSets.forEach(variantsOf); // a prompt or k promptVariants refuses fails here, before any evaluation
  // What every evaluation of this run shares (the hf backend's watcher too).
  const gridOptions: Omit<GridOptions, 'checkpoints'> = {
    storePath: ctx.storePath, store: ctx.store, run: run.id, runModel: run.model.id, testSets: ctx.testSets,
    variants: variantsOf,
    task: study.evaluation.task, scoring: study.evaluation.scoring, progress: ctx.evalProgress, loader: ctx.loader,
    labelTokens: settings.labelTokens, studyBLabelTokens: settings.studyBLabelTokens, bos: settings.bos, zeroShotPrefix: settings.zeroShotPrefix,
    ...readingRulesOf(settings, studyAOnly),
  };
  const evaluate = async (checkpoints: { step: number; dir: string; base?: string; tokenizer?: string }[]) => {
    ctx.stages?.evaluate(checkpoints.map((c) => c.step));
    const summary = await evaluateGrid({ ...gridOptions, checkpoints });
    ctx.work.answersComputed += summary.computed;
    ctx.work.answersCached += summary.cached;
  };

  if (training === undefined) {
    await evaluate([{ step: 0, dir: modelDir }]);
    return;
  }

  const runDir = path.join(ctx.runsDir, run.id);
  const taskName = run.trainingSet.task ?? training.taskPreset ?? study.evaluation.task;
  const task = resolveTask({ task: taskName, scoring: study.evaluation.scoring },
    ctx.testSets.find((t) => t.id === study.evaluation.control) ?? ctx.testSets[0]);
  const options: TrainOptions = {
    model: modelDir, outDir: runDir, task, train: training.examples, dataName: run.trainingSet.id,
    demonstrations: method.kind === 'fticl' ? await fticlDemonstrations(study, run, training.examples, ctx.dataDir) : undefined,
    ...(training.replayed ? { labelTokenIds: { [training.replayed.bug.label]: training.replayed.bug.trainTokenId } } : {}),
    method: method.finetune,
    lora: method.finetune === 'lora' ? {
      r: method.lora?.r ?? LORA_DEFAULTS.r, alpha: method.lora?.alpha ?? LORA_DEFAULTS.alpha, dropout: method.lora?.dropout ?? LORA_DEFAULTS.dropout,
      targetModules: method.lora?.targets ?? defaultLoraTargetsOf(modelDir),
    } : undefined,
    lr: method.lr!, weightDecay: method.weightDecay, schedule: method.schedule, warmupRatio: method.warmupRatio,
    batchSize: method.batchSize, gradAccum: gradAccumOf(method),
    // objective, labelTokens, padTo, maxGradNorm, lossWeighting, truncation, maxLength: the study's settings, under the trainer's same names.
    ...trainerSettingsOf(settings, method, run.trainingSet, studyAOnly),
    log: (line) => ctx.log(`genstudy: ${run.id}: ${line}`),
    epochs: method.epochs, maxSteps: method.steps, seed: run.seed, trainSize: run.trainingSet.size,
    checkpoints: study.checkpoints, store: ctx.store, run: run.id, progress: ctx.trainProgress, logEvery: LOG_EVERY,
  };
  const trained = await trainRun(options, studyBackend(study, method.backend, ctx), {
    gridOptions, evaluate, log: ctx.log,
    countAnswers: (computed, cached) => { ctx.work.answersComputed += computed; ctx.work.answersCached += cached; },
  });
  ctx.work.trainingSteps += trained.stepsTaken;
  // The trainer records its own settings on the run; the study's description of it wins.
  recordRun(ctx.store, runRecord);
  // Checkpoints written by an earlier, interrupted invocation (or before a resume) are evaluated
  // here; those already stored from the same inputs are skipped without per-example work (the
  // cells' fingerprints, evaluate/grid.ts), and no model is loaded unless an answer is missing.
  await evaluate(discoverCheckpoints(runDir, { baseModel: modelDir, tokenizerDir: modelDir }).checkpoints);
}

/** The backend a study method trains on; the hf backend launched as the study's `hf:` section says, its output in the study's log. */
function studyBackend(study: Study, backend: Study['methods'][number]['backend'], ctx: RunContext): TrainBackend {
  if (backend === 'builtin') return { kind: 'builtin' };
  const hf = study.hf;
  return {
    kind: 'hf',
    launch: {
      launcher: hf.launcher, python: hf.python, processes: hf.processes,
      accelerateConfig: hf.accelerateConfig === undefined ? undefined : path.resolve(ctx.studyDir, hf.accelerateConfig),
    },
    trainingArguments: hf.trainingArguments, acceptCheckpointGaps: hf.acceptCheckpointGaps,
    onOutput: (chunk) => { for (const line of chunk.split('\n')) if (line.trim()) ctx.log(`genstudy: hf: ${line}`); },
  };
}

/** Upserts the run, keeping attributes others (the trainer) recorded that this record does not name. */
function recordRun(store: ResultStore, record: RunRecord): void {
  const earlier = store.runs().find((r) => r.id === record.id);
  store.upsertRun({ ...record, attributes: { ...earlier?.attributes, ...record.attributes } });
}

/**
 * The store's prompt_variant of a run's reported cell (Prompt-1 at the run's k), as the variants
 * name it; at 0 shots, the variant the report shows by default.
 */
export function reportedVariant(study: Study, settings: StudySettings, shots: number): string {
  if (settings.grid === 'every-k-and-prompt') return `prompt-1/${shots}-shot`;
  const prompts = study.evaluation.prompts;
  return promptVariants(prompts, shots > 0 ? [shots] : undefined).find((v) => v.prompt === 1 && v.shots === shots)?.name
    ?? promptVariants(prompts, shots > 0 ? [shots] : undefined)[0].name;
}
