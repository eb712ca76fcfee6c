// A task by name: a preset of the table (task-presets.ts) or a task spec file (YAML or JSON), read
// and checked against the one task schema.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { formatIssues } from '../data/spec.ts';
import { DEFAULT_SCORING, SCORING_MODES, validateClassifyTask, type ScoringMode, type TaskSpec } from './task.ts';
import { validateGenerateTask } from './generate.ts';
import { TASK_PRESET_NAMES, taskPreset } from './task-presets.ts';

const text = z.string().min(1, 'expected a non-empty string');

/** How demonstrations and the query are joined (TaskJoin in task.ts). */
const JoinSchema = z.strictObject({ separator: z.string().optional(), zeroShotPrefix: z.string().optional() });

const ClassifySchema = z.strictObject({
  kind: z.literal('classify'),
  name: text,
  template: text,
  labels: z.array(text).min(2, 'expected at least two labels'),
  verbalizer: z.record(z.string(), text),
  scoring: z.enum(SCORING_MODES).default(DEFAULT_SCORING),
  targetDelimiter: z.string().optional(),
  join: JoinSchema.optional(),
});

const GenerateSchema = z.strictObject({
  kind: z.literal('generate'),
  name: text,
  template: text,
  targetField: text.optional(),
  maxNewTokens: z.number().int().positive(),
  stop: z.array(text).default([]),
  postprocess: z.strictObject({ strip: z.enum(['python', 'none']).default('python'), cutAt: z.array(text).default([]) })
    .default({ strip: 'python', cutAt: [] }),
  join: JoinSchema.optional(),
});

export const TaskSchema = z.discriminatedUnion('kind', [ClassifySchema, GenerateSchema]);

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

/** A task by name: a preset (study-a, study-b/<task>, synthetic) or a task spec file; validated. */
export function taskByName(name: string, opts: { prompt?: 1 | 2; scoring?: ScoringMode } = {}): TaskSpec {
  const prompt = opts.prompt ?? 1;
  const preset = taskPreset(name);
  let task: TaskSpec;
  if (preset) {
    task = preset.spec(preset.prompts.includes(prompt) ? prompt : 1, opts.scoring ?? DEFAULT_SCORING);
  } else {
    if (!/\.(ya?ml|json)$/i.test(name) || !fs.existsSync(name)) {
      throw new UserError(`--task ${name}: not a preset (${TASK_PRESET_NAMES.join(', ')}) and not a task spec file (.yaml/.yml/.json)`);
    }
    task = readTaskFile(path.resolve(name));
    if (opts.scoring && task.kind === 'classify') task = { ...task, scoring: opts.scoring };
  }
  if (!(preset?.prompts ?? [1]).includes(prompt)) {
    throw new UserError(`--prompt ${prompt}: only study B's tasks have a Prompt-2 (task "${task.name}")`);
  }
  if (task.kind === 'classify') validateClassifyTask(task);
  else validateGenerateTask(task);
  return task;
}
