// The prompts, label words and settings of the two studies of docs/studies.md, as data.
//
// Study B's templates are a copy of prompt_map.json from GitHub LHRYANG/Generalization_of_FT-LLM
// (data/prompt_map.json), embedded so that they need no download; test/tasks/presets.test.ts
// compares the copy with the original where a data folder holds it.
import { UserError } from '../errors.ts';
import type { TaskKind } from '../types.ts';
import { DEFAULT_SCORING, type ClassifyTaskSpec, type GenerateTaskSpec, type JoinOptions, type ScoringMode, type TaskSpec } from './task.ts';

export const STUDY_B_TASKS = ['summary', 'question', 'sentiment', 'inference', 'detection'] as const;
export type StudyBTask = (typeof STUDY_B_TASKS)[number];

/** prompt_map.json: index 0 is Prompt-1 (training and testing), index 1 is Prompt-2 (the cross-task check). */
export const STUDY_B_PROMPT_MAP: readonly Readonly<Record<StudyBTask, string>>[] = [
  {
    summary: '### Input:\n{input}\n### Summary:',
    question: '### Input:\n{input}\n### Answer:\n{answer}\n### Question:',
    sentiment: '### Input:\n{input}\n### Sentiment:',
    inference: '### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Inference:',
    detection: '### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Paraphrase Classification:',
  },
  {
    summary: 'Please read the following text:{input}\nProvide a summary:',
    question: 'Given the context:{input}\nAnd the answer:{answer}\nGenerate a suitable question:',
    sentiment: 'Analyze the sentiment of the following text:{input}\nSentiment:',
    inference: 'Consider the following texts: Text 1:{input_1}\nText 2:{input_2}\nThe relation is ',
    detection: "Let's compare the two sentences: Sentence_1:{input_1}\nSentence_2:{input_2}\nAre they paraphrasing?:",
  },
];

/**
 * Study B's label words, in the order of its target_ids (evaluate_cross.py): prediction index i is
 * label i. The words follow the prompt with no space; the label name is the word itself.
 */
export const STUDY_B_LABELS: Readonly<Partial<Record<StudyBTask, readonly string[]>>> = {
  sentiment: ['positive', 'negative'],
  detection: ['yes', 'no'],
  inference: ['entailment', 'neutral', 'contradiction'],
};

export function studyBKind(task: StudyBTask): TaskKind {
  return STUDY_B_LABELS[task] ? 'classify' : 'generate';
}

/**
 * The Llama-2 token ids study B hard-coded as each label word's first token (evaluate_cross.py,
 * target_ids), in label order. Kept so an engine's first-token choice for the label strings can be
 * checked against the paper's with a Llama-2 tokenizer.
 */
export const STUDY_B_LLAMA2_TARGET_IDS: Readonly<Partial<Record<StudyBTask, readonly number[]>>> = {
  sentiment: [1066, 22198],
  inference: [296, 17821, 9996],
  detection: [3582, 1217],
};

/** What each of STUDY_B_LLAMA2_TARGET_IDS decodes to with Llama-2's tokenizer (the check that a tokenizer is Llama-2's). */
export const STUDY_B_LLAMA2_TARGET_PIECES: Readonly<Partial<Record<StudyBTask, readonly string[]>>> = {
  sentiment: ['pos', 'negative'],
  inference: ['ent', 'neut', 'contr'],
  detection: ['yes', 'no'],
};

/** max_new_tokens in run_evaluate.sh: 60 for generation, 5 for classification. */
export const STUDY_B_MAX_NEW_TOKENS = { generate: 60, classify: 5 } as const;

/** k of in-context learning at test time (evaluate_cross.py's shot_list, with 0 appended). */
export const STUDY_B_ICL_SHOTS: Readonly<Record<StudyBTask, readonly number[]>> = {
  summary: [4, 2, 1, 0], question: [4, 2, 1, 0], sentiment: [2, 4, 6, 0], detection: [2, 4, 6, 0], inference: [3, 5, 7, 0],
};

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
