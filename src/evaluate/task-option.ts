// The --task option of evaluation: which task a test set is evaluated with, the one chosen (a
// preset name or a task spec file, tasks/task-file.ts) or, when none is given, the preset the test
// set implies (its registry entry's or the synthetic suite's).
import { UserError } from '../errors.ts';
import { TASK_PRESET_NAMES, taskByName, taskPreset, type ScoringMode, type TaskPreset, type TaskSpec } from '../tasks/index.ts';
import type { EvalTestSet } from './test-sets.ts';

export interface TaskChoice {
  /** --task: a preset or a spec file; undefined: the test set's own preset. */
  task?: string;
  /** Study B's Prompt-1 or Prompt-2. */
  prompt?: 1 | 2;
  /** Overrides a classify task's scoring mode. */
  scoring?: ScoringMode;
}

function chosenName(choice: TaskChoice, set: EvalTestSet): string | undefined {
  return choice.task ?? set.taskPreset;
}

/** The task for one test set: the one chosen, else the preset the set implies. */
export function resolveTask(choice: TaskChoice, set: EvalTestSet): TaskSpec {
  const name = chosenName(choice, set);
  if (name === undefined) {
    throw new UserError(`test set "${set.id}" (${set.source}) implies no task; pass --task (${TASK_PRESET_NAMES.join(', ')}, or a task spec file)`);
  }
  return taskByName(name, { prompt: choice.prompt, scoring: choice.scoring });
}

/** The preset a test set is evaluated with, when the task is a preset (undefined for a task spec file). */
export function resolvePreset(choice: TaskChoice, set: EvalTestSet): TaskPreset | undefined {
  return taskPreset(chosenName(choice, set));
}
