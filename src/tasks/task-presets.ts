// The task presets, one table: every name --task, a study file's `task:` or a registry entry's
// `preset` may give, with what callers need to know of a preset (its kind, the study whose
// protocol rows apply to it, its prompts, its short name, study B's Llama-2 ids) so that no caller
// reads these facts off the name. The prompts and label words themselves are in presets.ts.
import {
  STUDY_B_LLAMA2_TARGET_IDS, STUDY_B_LLAMA2_TARGET_PIECES, STUDY_B_TASKS, studyATask, studyBKind, studyBTask, syntheticTask,
  type StudyBTask,
} from './presets.ts';
import type { ScoringMode, TaskSpec } from './task.ts';
import type { TaskKind } from '../types.ts';

export interface TaskPreset {
  /** What a user writes: "study-a", "study-b/<task>", "synthetic". */
  name: string;
  kind: TaskKind;
  /**
   * The study whose released code the preset replays, so that the study's own protocol rows apply
   * to it: study A's F1 positive class and reading position, study B's supervised objective and
   * every-k-and-prompt grid. The synthetic suite borrows study A's pattern but is no study's.
   */
  study?: 'A' | 'B';
  /** Study B's task, for its per-task tables (ICL shots, FTICL shots, few-shot files). */
  studyBTask?: StudyBTask;
  /**
   * The name the task goes by in per-task maps of a study file (shots, demonstrations) and in the
   * report's task x test set matrices (runs.training_task, test_sets.spec.task): "sentiment".
   */
  shortName: string;
  /** The prompt variants it has: study B's tasks have Prompt-1 and Prompt-2 (the cross-task check). */
  prompts: readonly (1 | 2)[];
  /** Study B's hard-coded Llama-2 label ids and what they decode to, in label order (its classify tasks). */
  llama2Ids?: { ids: readonly number[]; pieces: readonly string[] };
  /** The task spec for a prompt variant and a scoring mode. */
  spec(prompt: 1 | 2, scoring: ScoringMode): TaskSpec;
}

function studyBPreset(task: StudyBTask): TaskPreset {
  const ids = STUDY_B_LLAMA2_TARGET_IDS[task];
  const pieces = STUDY_B_LLAMA2_TARGET_PIECES[task];
  return {
    name: `study-b/${task}`, kind: studyBKind(task), study: 'B', studyBTask: task, shortName: task, prompts: [1, 2],
    ...(ids && pieces ? { llama2Ids: { ids, pieces } } : {}),
    spec: (prompt, scoring) => studyBTask(task, prompt, scoring),
  };
}

export const TASK_PRESETS: readonly TaskPreset[] = [
  { name: 'study-a', kind: 'classify', study: 'A', shortName: 'study-a', prompts: [1], spec: (_, scoring) => studyATask(scoring) },
  ...STUDY_B_TASKS.map(studyBPreset),
  { name: 'synthetic', kind: 'classify', shortName: 'synthetic', prompts: [1], spec: (_, scoring) => syntheticTask(scoring) },
];

export const TASK_PRESET_NAMES: readonly string[] = TASK_PRESETS.map((p) => p.name);

/** The preset of that name; undefined for anything else (a task spec file, no task). */
export function taskPreset(name: string | undefined): TaskPreset | undefined {
  return name === undefined ? undefined : TASK_PRESETS.find((p) => p.name === name);
}

/** A task's short name (TaskPreset.shortName) for a preset, else a task spec file's base name. */
export function taskShortName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return taskPreset(name)?.shortName ?? name.split('/').pop();
}
