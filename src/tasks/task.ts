// Task specs: plain data that turn examples into the strings a model sees (lm-evaluation-harness's
// split: tasks make requests, engines answer them, the evaluator joins the two).
//
// Whitespace ownership, stated once for every task kind:
// - The prompt is the template rendered exactly; nothing is trimmed or added.
// - The text that follows the prompt (a classify label word, a demonstration's output) is
//   `targetDelimiter + word` for classify tasks and the reference text for generate tasks, again
//   exactly. So a leading space belongs to the label word: study A's verbalizer is " Yes" / " No"
//   after a prompt ending in "No?", study B's label words ("positive") follow "Sentiment:" with no
//   space at all.
// - Requests carry the context exactly as rendered, trailing whitespace included (study B's
//   Prompt-2 for NLI ends in "The relation is "). For loglikelihood requests the engine, not the
//   task, moves that trailing whitespace onto the continuation as lm-evaluation-harness does (see
//   moveTrailingWhitespace in context-whitespace.ts); first-token requests with in-context label
//   tokens (the default) are split the same way (engine/hf/requests.ts, encodeFirstToken).
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { parseTemplate, renderTemplate, type Template } from './template.ts';

/** How a classify task's labels are scored: the first token of each label word, or each label's whole continuation. */
export const SCORING_MODES = ['first-token', 'full-word'] as const;
export type ScoringMode = (typeof SCORING_MODES)[number];
/** A task's scoring unless it or the command says otherwise (the presets, task spec files, a study file, --scoring). */
export const DEFAULT_SCORING: ScoringMode = 'first-token';

export interface ClassifyTaskSpec {
  kind: 'classify';
  name: string;
  /** Prompt template with {field} slots; rendered exactly. */
  template: string;
  /** Label names in candidate order: candidate i of every request is labels[i]. */
  labels: string[];
  /** Label -> the exact text that follows the prompt, leading space included where the study has one. */
  verbalizer: Record<string, string>;
  /**
   * first-token: log-softmax at the last prompt position read at each label word's first token
   * (both papers). full-word: log P(word | prompt) summed over the word's tokens
   * (lm-evaluation-harness loglikelihood), giving acc and acc_norm.
   */
  scoring: ScoringMode;
  /** Text put between the prompt and the label word, lm-evaluation-harness's target_delimiter. Default "". */
  targetDelimiter?: string;
  join?: TaskJoin;
}

export interface GenerationPostprocess {
  /** 'python': strip whitespace at both ends as Python's str.strip() does; 'none': keep it. */
  strip: 'python' | 'none';
  /** After stripping, keep the text before the first occurrence of any of these. */
  cutAt: string[];
}

export interface GenerateTaskSpec {
  kind: 'generate';
  name: string;
  template: string;
  /** The example field holding the reference output; when absent, Example.target is used. */
  targetField?: string;
  maxNewTokens: number;
  /**
   * Stop sequences passed to the engine. Study B passed none and cut afterwards (see
   * postprocess): stopping the engine at "\n\n" differs when the output starts with a blank line.
   */
  stop: string[];
  postprocess: GenerationPostprocess;
  join?: TaskJoin;
}

export type TaskSpec = ClassifyTaskSpec | GenerateTaskSpec;

/** How demonstrations and the query are joined into one context. */
export interface JoinOptions {
  /** After each demonstration's prompt + output. Study B: "\n\n". */
  separator: string;
  /**
   * Put before the query prompt when there are no demonstrations. Study B wrote the literal
   * "<s> " (Llama's BOS text, tokenised with add_special_tokens=False) for 0-shot prompts only.
   */
  zeroShotPrefix: string;
}

export const DEFAULT_JOIN: JoinOptions = { separator: '\n\n', zeroShotPrefix: '' };

/**
 * A task's own join (its spec's `join` field; each part defaults to DEFAULT_JOIN's). The separator
 * is always used; the zero-shot prefix only under study B's BOS rule (joinFor in protocol.ts), where
 * it stands for the BOS the prompt is then encoded without: study B's tasks have "<s> ".
 */
export interface TaskJoin {
  separator?: string;
  zeroShotPrefix?: string;
}

/** The join a task's contexts are built with when no BOS rule applies: its separator, no zero-shot prefix. */
export function taskJoin(task: TaskSpec): JoinOptions {
  return { separator: task.join?.separator ?? DEFAULT_JOIN.separator, zeroShotPrefix: '' };
}

const templateCache = new Map<string, Template>();

/** The parsed template of a task (parsed once per name + source). */
export function taskTemplate(task: TaskSpec): Template {
  const key = `${task.name}\u0000${task.template}`;
  let t = templateCache.get(key);
  if (!t) {
    t = parseTemplate(task.template, task.name);
    templateCache.set(key, t);
  }
  return t;
}

/** Checks a classify spec; UserError names the task and the field at fault. */
export function validateClassifyTask(task: ClassifyTaskSpec): void {
  if (task.labels.length < 2) throw new UserError(`task "${task.name}": labels needs at least two labels`);
  const seen = new Set<string>();
  for (const label of task.labels) {
    if (seen.has(label)) throw new UserError(`task "${task.name}": label "${label}" is listed twice in labels`);
    seen.add(label);
    const word = task.verbalizer[label];
    if (typeof word !== 'string' || word.length === 0) {
      throw new UserError(`task "${task.name}": verbalizer has no word for label "${label}"`);
    }
  }
  const words = task.labels.map((l) => (task.targetDelimiter ?? '') + task.verbalizer[l]);
  if (new Set(words).size !== words.length) {
    throw new UserError(`task "${task.name}": two labels share the same verbalizer word (${JSON.stringify(words)})`);
  }
  if (!(SCORING_MODES as readonly string[]).includes(task.scoring)) {
    throw new UserError(`task "${task.name}": scoring must be ${SCORING_MODES.map((m) => `"${m}"`).join(' or ')}, got "${String(task.scoring)}"`);
  }
  taskTemplate(task);
}

/** The rendered prompt of one example, exactly. */
export function promptOf(task: TaskSpec, example: Example): string {
  return renderTemplate(taskTemplate(task), example.fields, example.id);
}

/** The text that follows a classify prompt for a label: targetDelimiter + verbalizer word. */
export function labelContinuation(task: ClassifyTaskSpec, label: string, exampleId?: string): string {
  const word = Object.hasOwn(task.verbalizer, label) ? task.verbalizer[label] : undefined;
  if (word === undefined) {
    const at = exampleId === undefined ? '' : ` (example "${exampleId}")`;
    throw new UserError(
      `task "${task.name}": label "${label}"${at} is not in the verbalizer; expected one of ${task.labels.map((l) => `"${l}"`).join(', ')}`,
    );
  }
  return (task.targetDelimiter ?? '') + word;
}

/** The gold label of a classify example; UserError when it has none or an unknown one. */
export function goldLabel(task: ClassifyTaskSpec, example: Example): string {
  if (example.label === undefined) throw new UserError(`task "${task.name}": example "${example.id}" has no label`);
  labelContinuation(task, example.label, example.id);
  return example.label;
}

/** The reference output of a generate example: fields[targetField], or Example.target. */
export function referenceOf(task: GenerateTaskSpec, example: Example): string {
  if (task.targetField !== undefined) {
    const v = Object.hasOwn(example.fields, task.targetField) ? example.fields[task.targetField] : undefined;
    if (typeof v !== 'string') {
      throw new UserError(`task "${task.name}": example "${example.id}" has no field "${task.targetField}" (the target field)`);
    }
    return v;
  }
  if (typeof example.target !== 'string') {
    throw new UserError(`task "${task.name}": example "${example.id}" has no target, and the task names no targetField`);
  }
  return example.target;
}

/**
 * What follows the prompt in a demonstration or a training string: the gold label's continuation
 * for classify tasks, the reference for generate tasks.
 */
export function outputOf(task: TaskSpec, example: Example): string {
  if (task.kind === 'classify') return labelContinuation(task, goldLabel(task, example), example.id);
  return referenceOf(task, example);
}

/**
 * The full context for a query: each demonstration as prompt + output + separator, then the
 * query's prompt (study B's evaluate_cross.py and train_ptune.py); with no demonstrations,
 * zeroShotPrefix + prompt.
 */
export function buildContext(task: TaskSpec, query: Example, demonstrations: readonly Example[] = [], join: JoinOptions = DEFAULT_JOIN): string {
  if (demonstrations.length === 0) return join.zeroShotPrefix + promptOf(task, query);
  let ctx = '';
  for (const d of demonstrations) ctx += promptOf(task, d) + outputOf(task, d) + join.separator;
  return ctx + promptOf(task, query);
}
