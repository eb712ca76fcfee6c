// A study's protocol settings: the protocol's row of src/tasks/protocol.ts, with any single setting
// the study file writes out taking precedence. Everything that runs a study reads them from here.
import { UserError } from '../errors.ts';
import {
  PROTOCOL_SETTINGS, STUDY_A_PAD_TO, STUDY_B_ICL_SHOTS, STUDY_B_MAX_LENGTH, taskPreset, taskShortName,
  type BosRule, type EvaluationGrid, type GridRunShots, type LabelTokens,
  type LossWeighting, type Protocol, type ReadingPosition, type RougeAggregate, type StudyAMnliNeutral, type TrainingTruncation, type UnlabeledRows,
  type ZeroShotPrefix,
} from '../tasks/index.ts';
import type { Study, StudyMethod, StudyTrainingSet } from './schema.ts';
import type { LabelTokenRule } from '../types.ts';
import { TRAINER_OBJECTIVE, type OBJECTIVES } from '../train/option-table.ts';

export interface StudySettings {
  protocol: Protocol;
  labelTokens: LabelTokens;
  bos: BosRule;
  unlabeledRows: UnlabeledRows;
  rouge: RougeAggregate;
  grid: EvaluationGrid;
  /** The every-k grid's k per test-set task name ("sentiment"); study B's by default. */
  gridShots: Readonly<Record<string, readonly number[]>>;
  /** F1's positive class for study A's tasks (undefined: the first label). */
  studyAPositiveLabel?: string;
  /** F1's positive class for every task, when the study names one. */
  positiveLabel?: string;
  /** Study A's tasks: where the label logits are read. */
  readingPosition: ReadingPosition;
  /** Study B's classification cells: the label token read (evaluation.labelTokens, when written, covers them too). */
  studyBLabelTokens: LabelTokens;
  /** The every-k grid: whether a run's own k joins each test set's k list. */
  gridRunShots: GridRunShots;
  /** Study B's "<s> " 0-shot prefix under its BOS rule. */
  zeroShotPrefix: ZeroShotPrefix;
  /** Study A's MNLI neutral rows (training and test sets of study A's task). */
  studyAMnliNeutral: StudyAMnliNeutral;
  /** The protocol's training defaults; a method's own value wins (trainingSettingsOf). */
  maxGradNorm: number;
  lossWeighting: LossWeighting;
  trainingTruncation: TrainingTruncation;
}

export function studySettings(study: Study): StudySettings {
  const p = PROTOCOL_SETTINGS[study.protocol];
  const e = study.evaluation;
  return {
    protocol: study.protocol,
    labelTokens: e.labelTokens ?? p.labelTokens,
    bos: e.bos ?? p.bos,
    unlabeledRows: e.unlabeledRows ?? p.unlabeledRows,
    rouge: e.rouge ?? p.rouge,
    grid: e.grid ?? p.grid,
    gridShots: { ...STUDY_B_ICL_SHOTS, ...e.shots },
    studyAPositiveLabel: e.positiveLabel ?? p.studyAPositiveLabel,
    positiveLabel: e.positiveLabel,
    readingPosition: e.readingPosition ?? p.studyAReadingPosition,
    studyBLabelTokens: e.labelTokens ?? p.studyBLabelTokens,
    gridRunShots: e.gridRunShots ?? p.gridRunShots,
    zeroShotPrefix: e.zeroShotPrefix ?? p.zeroShotPrefix,
    studyAMnliNeutral: e.studyAMnliNeutral ?? p.studyAMnliNeutral,
    maxGradNorm: p.maxGradNorm,
    lossWeighting: p.lossWeighting,
    trainingTruncation: p.trainingTruncation,
  };
}

/** A trained method's clipping, loss weighting and truncation: its own values, else the protocol's. */
export function trainingSettingsOf(
  settings: StudySettings, method: StudyMethod,
): Pick<StudySettings, 'maxGradNorm' | 'lossWeighting' | 'trainingTruncation'> {
  return {
    maxGradNorm: method.maxGradNorm ?? settings.maxGradNorm,
    lossWeighting: method.lossWeighting ?? settings.lossWeighting,
    trainingTruncation: method.truncation ?? settings.trainingTruncation,
  };
}

/**
 * The trainer's options for those settings: the clipping norm, the loss weighting, and for
 * first-1024 on the supervised objective (study B's train.py) the first STUDY_B_MAX_LENGTH tokens kept.
 */
export function trainerSettingsOf(settings: StudySettings, method: StudyMethod, set: StudyTrainingSet): {
  maxGradNorm: number; lossWeighting: LossWeighting; truncation?: 'keep-first'; maxLength?: number;
} {
  const t = trainingSettingsOf(settings, method);
  const firstTokens = t.trainingTruncation === 'first-1024' && objectiveOf(method, set) === 'supervised';
  return { maxGradNorm: t.maxGradNorm, lossWeighting: t.lossWeighting,
    ...(firstTokens ? { truncation: 'keep-first', maxLength: STUDY_B_MAX_LENGTH } : {}) };
}

/** The task name a training set is known by in per-task maps: "sentiment" for "study-b/sentiment". */
export function taskNameOf(set: StudyTrainingSet): string | undefined {
  return taskShortName(set.task);
}

/** A per-training-set list: the set's own entry (by id), else its task's. */
export function listFor<T>(map: Record<string, T>, set: StudyTrainingSet, what: string): T {
  if (Object.hasOwn(map, set.id)) return map[set.id];
  const task = taskNameOf(set);
  if (task !== undefined && Object.hasOwn(map, task)) return map[task];
  throw new UserError(
    `${what} names no list for training set "${set.id}"${task ? ` or its task "${task}"` : ''} (it has: ${Object.keys(map).join(', ')})`);
}

/** FTICL's k values for a training set (one run per k). */
export function fticlShots(method: StudyMethod, set: StudyTrainingSet): number[] {
  const d = method.demonstrations;
  if (d === undefined) return [];
  if (typeof d === 'number') return [d];
  if (Array.isArray(d)) return d;
  return listFor(d, set, `methods "${method.name}": demonstrations`);
}

/** The training objective of a method: study B's supervised one for its tasks, study A's label token otherwise. */
export function objectiveOf(method: StudyMethod, set: StudyTrainingSet): NonNullable<StudyMethod['objective']> {
  if (method.objective) return method.objective;
  return taskPreset(set.task)?.study === 'B' ? 'supervised' : 'label-token';
}

/** Where FTICL demonstrations come from and how they are picked, under the study's protocol. */
export function demonstrationSource(study: Study, method: StudyMethod): {
  pool: NonNullable<StudyMethod['demonstrationPool']>; selection: NonNullable<StudyMethod['demonstrationSelection']>;
} {
  const official = PROTOCOL_SETTINGS[study.protocol].fticlDemonstrations === 'few-shot-first';
  return {
    pool: method.demonstrationPool ?? (official ? 'few-shot' : 'training'),
    selection: method.demonstrationSelection ?? (official ? 'first' : 'sampled'),
  };
}

/** Gradient accumulation steps of a method: globalBatch / batchSize when a global batch is given. */
export function gradAccumOf(method: StudyMethod): number {
  return method.globalBatch === undefined ? method.gradAccum : method.globalBatch / method.batchSize;
}

/** The every-k grid's k for a test set of a study-B task (undefined for other sets: 0 shots only). */
export function gridShotsFor(settings: StudySettings, presetName: string | undefined): readonly number[] {
  const task = taskPreset(presetName)?.studyBTask;
  if (task === undefined) return [0];
  return settings.gridShots[task] ?? [0];
}

// The rules a run of the study follows at evaluation and in training, decided from its settings.

/**
 * The prompts and shot counts a run of `runShots` shots is evaluated with on a test set of preset
 * `presetName`. The every-k-and-prompt grid (evaluate_cross.py) takes every k of the set's task
 * with both of its prompts, and the run's own k (add-run-k) so that its reported cell exists;
 * otherwise the study's prompts at the run's k. (`promptVariants` names them.)
 */
export function evaluationCellsFor(study: Study, settings: StudySettings, runShots: number, presetName: string | undefined): {
  prompts?: readonly number[]; shots?: readonly number[];
} {
  if (settings.grid === 'every-k-and-prompt') {
    const ks = [...new Set([...gridShotsFor(settings, presetName), ...(settings.gridRunShots === 'add-run-k' ? [runShots] : [])])];
    return { prompts: taskPreset(presetName)?.prompts ?? [1], shots: ks };
  }
  return { prompts: study.evaluation.prompts, shots: runShots > 0 ? [runShots] : undefined };
}

/** Whether the study evaluates study A's tasks only: study A's reading position and positive class then apply. */
export function isStudyAOnly(study: Study, testSetPresets: readonly (string | undefined)[]): boolean {
  return testSetPresets.every((p) => taskPreset(p)?.study === 'A') || taskPreset(study.evaluation.task)?.study === 'A';
}

/** Where evaluation reads the label logits (study A's padded position) and F1's positive class. */
export function readingRulesOf(settings: StudySettings, studyAOnly: boolean): { padTo?: number; positiveLabel?: string } {
  return {
    ...(studyAOnly && settings.readingPosition === 'padded-128' ? { padTo: STUDY_A_PAD_TO } : {}),
    positiveLabel: settings.positiveLabel ?? (studyAOnly ? settings.studyAPositiveLabel : undefined),
  };
}

/** How a trained method's targets are read: its objective, label token and (study A's label-token objective) padded position. */
export function trainingTargetsOf(settings: StudySettings, method: StudyMethod, set: StudyTrainingSet, studyAOnly: boolean): {
  objective: (typeof OBJECTIVES)[number]; labelTokens: LabelTokenRule; padTo?: number;
} {
  const objective = objectiveOf(method, set);
  return {
    objective: TRAINER_OBJECTIVE[objective],
    // llama2-ids are evaluation-only ids; a label-token objective trains the in-context token (the same ids with Llama-2's Prompt-1).
    labelTokens: settings.labelTokens === 'llama2-ids' ? 'in-context' : settings.labelTokens,
    ...(studyAOnly && settings.readingPosition === 'padded-128' && objective === 'label-token' ? { padTo: STUDY_A_PAD_TO } : {}),
  };
}
