// Which task (prompt template, labels, scoring) a test set is evaluated with: a preset name
// ("study-a", "study-b/<task>", "synthetic"), a task spec file (YAML or JSON), or, when none is given,
// the preset the test set implies (its registry entry or the synthetic suite).
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { formatIssues } from '../data/spec.ts';
import { STUDY_B_TASKS, studyATask, studyBTask, validateClassifyTask, validateGenerateTask, type ScoringMode, type StudyBTask, type TaskSpec } from '../tasks/index.ts';
import { suiteTask } from '../synth/index.ts';
import type { EvalTestSet } from './test-sets.ts';

const text = z.string().min(1, 'expected a non-empty string');

const ClassifySchema = z.strictObject({
  kind: z.literal('classify'),
  name: text,
  template: text,
  labels: z.array(text).min(2, 'expected at least two labels'),
  verbalizer: z.record(z.string(), text),
  scoring: z.enum(['first-token', 'full-word']).default('first-token'),
  targetDelimiter: z.string().optional(),
});

const GenerateSchema = z.strictObject({
  kind: z.literal('generate'),
  name: text,
  template: text,
  targetField: text.optional(),
  maxNewTokens: z.number().int().positive(),
  stop: z.array(text).default([]),
  postprocess: z.strictObject({ strip: z.enum(['python', 'none']).default('python'), cutAt: z.array(text).default([]) }).default({ strip: 'python', cutAt: [] }),
});

const TaskSchema = z.discriminatedUnion('kind', [ClassifySchema, GenerateSchema]);

export const TASK_PRESETS = ['study-a', ...STUDY_B_TASKS.map((t) => `study-b/${t}`), 'synthetic'] as const;

export interface TaskChoice {
  /** --task: a preset or a spec file; undefined: the test set's own preset. */
  task?: string;
  /** Study B's Prompt-1 or Prompt-2. */
  prompt?: 1 | 2;
  /** Overrides a classify task's scoring mode. */
  scoring?: ScoringMode;
}

export function readTaskFile(file: string): TaskSpec {
  let value: unknown;
  try {
    const source = fs.readFileSync(file, 'utf8');
    value = /\.json$/i.test(file) ? JSON.parse(source) : parseYaml(source);
  } catch (err) {
    throw new UserError(`${file}: cannot read the task spec (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = TaskSchema.safeParse(value);
  if (!parsed.success) throw new UserError(formatIssues(file, parsed.error.issues));
  return parsed.data as TaskSpec;
}

function preset(name: string, prompt: 1 | 2, scoring: ScoringMode): TaskSpec | undefined {
  if (name === 'study-a') return studyATask(scoring);
  if (name === 'synthetic') return { ...suiteTask(), scoring };
  if (name.startsWith('study-b/')) {
    const t = name.slice('study-b/'.length) as StudyBTask;
    if (STUDY_B_TASKS.includes(t)) return studyBTask(t, prompt, scoring);
  }
  return undefined;
}

/** A task by name: a preset (study-a, study-b/<task>, synthetic) or a task spec file; validated. */
export function taskByName(name: string, opts: { prompt?: 1 | 2; scoring?: ScoringMode } = {}): TaskSpec {
  const prompt = opts.prompt ?? 1;
  let task = preset(name, prompt, opts.scoring ?? 'first-token');
  if (task === undefined) {
    if (!/\.(ya?ml|json)$/i.test(name) || !fs.existsSync(name)) {
      throw new UserError(`--task ${name}: not a preset (${TASK_PRESETS.join(', ')}) and not a task spec file (.yaml/.yml/.json)`);
    }
    task = readTaskFile(path.resolve(name));
    if (opts.scoring && task.kind === 'classify') task = { ...task, scoring: opts.scoring };
  }
  if (prompt !== 1 && !name.startsWith('study-b/')) throw new UserError(`--prompt ${prompt}: only study B's tasks have a Prompt-2 (task "${task.name}")`);
  if (task.kind === 'classify') validateClassifyTask(task);
  else validateGenerateTask(task);
  return task;
}

/** The task for one test set: the one chosen, else the preset the set implies. */
export function resolveTask(choice: TaskChoice, set: EvalTestSet): TaskSpec {
  const name = choice.task ?? set.taskPreset;
  if (name === undefined) {
    throw new UserError(`test set "${set.id}" (${set.source}) implies no task; pass --task (${TASK_PRESETS.join(', ')}, or a task spec file)`);
  }
  return taskByName(name, { prompt: choice.prompt, scoring: choice.scoring });
}
