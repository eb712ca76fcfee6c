// A study's protocol settings: the protocol's row of src/tasks/protocol.ts, with any single setting
// the study file writes out taking precedence. Everything that runs a study reads them from here.
import { UserError } from '../errors.ts';
import {
  PROTOCOL_SETTING_SPECS, PROTOCOL_SETTINGS, STUDY_A_PAD_TO, STUDY_B_ICL_SHOTS, STUDY_B_MAX_LENGTH, protocolSettingsAt, taskPreset, taskShortName,
  type LossWeighting, type Protocol, type ProtocolSettingName, type ProtocolSettings, type Truncation,
} from '../tasks/index.ts';
import type { Study, StudyMethod, StudyTrainingSet } from './schema.ts';
import type { LabelTokenRule } from '../types.ts';
import type { Objective } from '../train/option-table.ts';

/**
 * A study's settings: every protocol setting (tasks/protocol.ts) under its one name, the study
 * file's value where it writes one, else its protocol's; a method's own values are methodSettingsOf's.
 */
export type StudySettings = ProtocolSettings & {
  protocol: Protocol;
  /** The every-k grid's k per test-set task name ("sentiment"); study B's by default. */
  gridShots: Readonly<Record<string, readonly number[]>>;
  /** The settings the study file wrote (the others are its protocol's): a written positiveLabel is every task's, the protocol's study A's. */
  written: ReadonlySet<ProtocolSettingName>;
};

export function studySettings(study: Study): StudySettings {
  const row = PROTOCOL_SETTINGS[study.protocol];
  const evaluation = study.evaluation as Record<string, unknown>;
  const written = new Set<ProtocolSettingName>();
  const resolved = Object.fromEntries((Object.keys(PROTOCOL_SETTING_SPECS) as ProtocolSettingName[]).map((name) => {
    const place = PROTOCOL_SETTING_SPECS[name].study;
    const own = place === 'evaluation' ? evaluation[name] : typeof place === 'object' ? evaluation[place.setBy] : undefined;
    if (own !== undefined) written.add(name);
    return [name, own ?? row[name]];
  })) as ProtocolSettings;
  return { ...resolved, protocol: study.protocol, gridShots: { ...STUDY_B_ICL_SHOTS, ...study.evaluation.shots }, written };
}

type MethodSettingName = ReturnType<typeof protocolSettingsAt<'method'>>[number];

/** A method's protocol settings (clipping, loss weighting, truncation, FTICL's demonstrations): its own values, else the study's. */
export function methodSettingsOf(settings: StudySettings, method: StudyMethod): Pick<ProtocolSettings, MethodSettingName> {
  return Object.fromEntries(protocolSettingsAt('method').map((name) => [name, method[name] ?? settings[name]])) as
    Pick<ProtocolSettings, MethodSettingName>;
}

/**
 * The trainer's options for a method on a training set (train/options.ts, under the same names):
 * its objective; its label token; for study A's label-token objective under readingPosition
 * padded-128, the padded position; its clipping and loss weighting; and for keep-first on the
 * supervised objective (study B's train.py) the first STUDY_B_MAX_LENGTH tokens kept.
 */
export function trainerSettingsOf(settings: StudySettings, method: StudyMethod, set: StudyTrainingSet, studyAOnly: boolean): {
  objective: Objective; labelTokens: LabelTokenRule; padTo?: number;
  maxGradNorm: number; lossWeighting: LossWeighting; truncation?: Truncation; maxLength?: number;
} {
  const objective = objectiveOf(method, set);
  const m = methodSettingsOf(settings, method);
  const keepFirst = m.truncation === 'keep-first' && objective === 'supervised';
  return {
    objective,
    // llama2-ids are evaluation-only ids; a label-token objective trains the in-context token (the same ids with Llama-2's Prompt-1).
    labelTokens: settings.labelTokens === 'llama2-ids' ? 'in-context' : settings.labelTokens,
    ...(studyAOnly && settings.readingPosition === 'padded-128' && objective === 'label-token' ? { padTo: STUDY_A_PAD_TO } : {}),
    maxGradNorm: m.maxGradNorm, lossWeighting: m.lossWeighting,
    ...(keepFirst ? { truncation: 'keep-first', maxLength: STUDY_B_MAX_LENGTH } : {}),
  };
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
export function objectiveOf(method: StudyMethod, set: StudyTrainingSet): Objective {
  if (method.objective) return method.objective;
  return taskPreset(set.task)?.study === 'B' ? 'supervised' : 'label-token';
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
    positiveLabel: studyAOnly || settings.written.has('positiveLabel') ? settings.positiveLabel : undefined,
  };
}
