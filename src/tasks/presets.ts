// The prompts, label words and settings of the two studies of docs/studies.md, as data.
//
// Study B's templates are a copy of prompt_map.json from GitHub LHRYANG/Generalization_of_FT-LLM
// (data/prompt_map.json), embedded so that they need no download; test/tasks/presets.test.ts
// compares the copy with the original where a data folder holds it.
import { UserError } from '../errors.ts';
import type { TaskKind } from '../types.ts';
import { DEFAULT_SCORING, type ClassifyTaskSpec, type GenerateTaskSpec, type JoinOptions, type ScoringMode, type TaskSpec } from './task.ts';

/** One Llama-2 label word: the word, and the first token study B hard-coded for it. */
interface StudyBLabel { word: string; llama2Id: number; llama2Piece: string }

/**
 * Everything study B fixes per task, one record each (adding a task is one entry here and its test
 * sets in data/registry.json):
 * - prompts: prompt_map.json's Prompt-1 (training and testing) and Prompt-2 (the cross-task check);
 * - labels (classification tasks): the label words in the order of evaluate_cross.py's target_ids
 *   (prediction index i is label i; the word follows the prompt with no space and is the label's
 *   name), each with the Llama-2 token id study B hard-coded as its first token and what that id
 *   decodes to (kept so an engine's first-token choice can be checked against the paper's);
 * - iclShots: k of in-context learning at test time (evaluate_cross.py's shot_list, with 0 appended).
 */
const STUDY_B = {
  summary: {
    prompts: ['### Input:\n{input}\n### Summary:', 'Please read the following text:{input}\nProvide a summary:'],
    iclShots: [4, 2, 1, 0],
  },
  question: {
    prompts: ['### Input:\n{input}\n### Answer:\n{answer}\n### Question:',
      'Given the context:{input}\nAnd the answer:{answer}\nGenerate a suitable question:'],
    iclShots: [4, 2, 1, 0],
  },
  sentiment: {
    prompts: ['### Input:\n{input}\n### Sentiment:', 'Analyze the sentiment of the following text:{input}\nSentiment:'],
    labels: [{ word: 'positive', llama2Id: 1066, llama2Piece: 'pos' }, { word: 'negative', llama2Id: 22198, llama2Piece: 'negative' }],
    iclShots: [2, 4, 6, 0],
  },
  inference: {
    prompts: ['### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Inference:',
      'Consider the following texts: Text 1:{input_1}\nText 2:{input_2}\nThe relation is '],
    labels: [{ word: 'entailment', llama2Id: 296, llama2Piece: 'ent' }, { word: 'neutral', llama2Id: 17821, llama2Piece: 'neut' },
      { word: 'contradiction', llama2Id: 9996, llama2Piece: 'contr' }],
    iclShots: [3, 5, 7, 0],
  },
  detection: {
    prompts: ['### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Paraphrase Classification:',
      "Let's compare the two sentences: Sentence_1:{input_1}\nSentence_2:{input_2}\nAre they paraphrasing?:"],
    labels: [{ word: 'yes', llama2Id: 3582, llama2Piece: 'yes' }, { word: 'no', llama2Id: 1217, llama2Piece: 'no' }],
    iclShots: [2, 4, 6, 0],
  },
} as const satisfies Record<string, { prompts: readonly [string, string]; labels?: readonly StudyBLabel[]; iclShots: readonly number[] }>;

export type StudyBTask = keyof typeof STUDY_B;
export const STUDY_B_TASKS = Object.keys(STUDY_B) as StudyBTask[];

const labelsOf = (task: StudyBTask): readonly StudyBLabel[] | undefined => (STUDY_B[task] as { labels?: readonly StudyBLabel[] }).labels;
const perLabelledTask = <T>(f: (labels: readonly StudyBLabel[]) => T): Partial<Record<StudyBTask, T>> =>
  Object.fromEntries(STUDY_B_TASKS.flatMap((t) => { const l = labelsOf(t); return l ? [[t, f(l)]] : []; }));

/** prompt_map.json: index 0 is Prompt-1 (training and testing), index 1 is Prompt-2 (the cross-task check). */
export const STUDY_B_PROMPT_MAP: readonly Readonly<Record<StudyBTask, string>>[] = [0, 1].map((i) =>
  Object.fromEntries(STUDY_B_TASKS.map((t) => [t, STUDY_B[t].prompts[i]])) as Record<StudyBTask, string>);

/** Study B's label words per classification task, in the order of its target_ids. */
export const STUDY_B_LABELS: Readonly<Partial<Record<StudyBTask, readonly string[]>>> = perLabelledTask((l) => l.map((x) => x.word));

export function studyBKind(task: StudyBTask): TaskKind {
  return STUDY_B_LABELS[task] ? 'classify' : 'generate';
}

/** The Llama-2 token ids study B hard-coded as each label word's first token (evaluate_cross.py, target_ids), in label order. */
export const STUDY_B_LLAMA2_TARGET_IDS: Readonly<Partial<Record<StudyBTask, readonly number[]>>> = perLabelledTask((l) => l.map((x) => x.llama2Id));

/** What each of STUDY_B_LLAMA2_TARGET_IDS decodes to with Llama-2's tokenizer (the check that a tokenizer is Llama-2's). */
export const STUDY_B_LLAMA2_TARGET_PIECES: Readonly<Partial<Record<StudyBTask, readonly string[]>>> =
  perLabelledTask((l) => l.map((x) => x.llama2Piece));

/** max_new_tokens in run_evaluate.sh: 60 for generation, 5 for classification. */
export const STUDY_B_MAX_NEW_TOKENS = { generate: 60, classify: 5 } as const;

/** k of in-context learning at test time (evaluate_cross.py's shot_list, with 0 appended). */
export const STUDY_B_ICL_SHOTS: Readonly<Record<StudyBTask, readonly number[]>> =
  Object.fromEntries(STUDY_B_TASKS.map((t): [StudyBTask, readonly number[]] => [t, STUDY_B[t].iclShots])) as Record<StudyBTask, readonly number[]>;

/**
 * How study B joined demonstrations: prompt + output + "\n\n" each, then the query's prompt. Its
 * 0-shot prompts began with the literal text "<s> " (Llama-2's BOS, tokenised with
 * add_special_tokens=False) and its k-shot prompts had no BOS at all; the prefix is kept here so
 * the protocol can be replayed, and it only means BOS for a tokenizer whose BOS is "<s>".
 */
export const STUDY_B_JOIN: JoinOptions = { separator: '\n\n', zeroShotPrefix: '<s> ' };

/** Study B's task spec for one of its five tasks and Prompt-1 (1) or Prompt-2 (2). */
export function studyBTask(task: StudyBTask, prompt: 1 | 2 = 1, scoring: ScoringMode = DEFAULT_SCORING): TaskSpec {
  if (!STUDY_B_TASKS.includes(task)) throw new UserError(`unknown study B task "${task}"; expected one of ${STUDY_B_TASKS.join(', ')}`);
  const template = STUDY_B_PROMPT_MAP[prompt - 1]?.[task];
  if (template === undefined) throw new UserError(`study B has Prompt-1 and Prompt-2, not Prompt-${prompt}`);
  const name = `study-b/prompt-${prompt}/${task}`;
  const labels = STUDY_B_LABELS[task];
  if (labels) {
    const spec: ClassifyTaskSpec = {
      kind: 'classify', name, template, labels: [...labels],
      verbalizer: Object.fromEntries(labels.map((l) => [l, l])), scoring, targetDelimiter: '', join: { ...STUDY_B_JOIN },
    };
    return spec;
  }
  const spec: GenerateTaskSpec = {
    kind: 'generate', name, template, maxNewTokens: STUDY_B_MAX_NEW_TOKENS.generate,
    stop: [], postprocess: { strip: 'python', cutAt: ['\n\n'] }, join: { ...STUDY_B_JOIN },
  };
  return spec;
}

/** Study A's pattern: no space between premise and "Question:". */
export const STUDY_A_TEMPLATE = '{premise}Question: {hypothesis} Yes or No?';

/** Study A's predecessor tokenised with max_length=128, right padding and truncation (NLIDataset.py) and read the last padded position. */
export const STUDY_A_PAD_TO = 128;

/** Study A's verbalizer: the label words carry their leading space. */
export const STUDY_A_VERBALIZER: Readonly<Record<'Yes' | 'No', string>> = { Yes: ' Yes', No: ' No' };

export function studyATask(scoring: ScoringMode = DEFAULT_SCORING): ClassifyTaskSpec {
  return {
    kind: 'classify', name: 'study-a/pattern', template: STUDY_A_TEMPLATE, labels: ['Yes', 'No'],
    verbalizer: { ...STUDY_A_VERBALIZER }, scoring, targetDelimiter: '',
  };
}

/** The synthetic suite's task (src/synth/): study A's pattern and " Yes" / " No" verbalizer, so the pipeline runs the same code. */
export function syntheticTask(scoring: ScoringMode = DEFAULT_SCORING): ClassifyTaskSpec {
  return { ...studyATask(scoring), name: 'synthetic' };
}

// Study A's binary label maps (which raw labels are Yes, No or dropped) live with its data sets, in
// src/data/registry.json, the one place they are defined.
