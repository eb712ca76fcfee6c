// The core types every stage shares (docs/design.md: the flow they travel).
// Names may grow; meanings may not drift.

export interface Tokenizer {
  encode(text: string, opts?: { addSpecialTokens?: boolean }): number[];
  decode(ids: number[], opts?: { skipSpecialTokens?: boolean }): string;
  readonly vocabSize: number;
  readonly bosTokenId?: number;
  readonly eosTokenId?: number;
}

export interface ScoreRequest { context: string; continuation: string }
export interface ScoreResult { logprob: number; tokens: number; isGreedy: boolean }
export interface GenerateRequest {
  prompt: string;
  maxNewTokens: number;
  stop?: string[];
  /** Encode the prompt with the tokenizer's special tokens (e.g. Llama's BOS). Default true. */
  addSpecialTokens?: boolean;
}

/**
 * The kinds of a study's method: base (no training; k-shot in context), ft (fine-tuned), fticl
 * (fine-tuned with demonstrations). A study file's `kind`, recorded as the store's runs.method,
 * which the report groups study B's matrices by.
 */
export const METHOD_KINDS = ['base', 'ft', 'fticl'] as const;
export type MethodKind = (typeof METHOD_KINDS)[number];

/** What a task does with a prompt: score the labels (classify) or generate text (generate). */
export const TASK_KINDS = ['classify', 'generate'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/**
 * How a server's model is matched with a checkpoint when the server does not report its weights
 * (engine/remote/served-identity.ts): its listed root is the checkpoint's folder (the default), or a
 * few prompt log-probs agree with the built-in engine's.
 */
export const IDENTITY_CHECKS = ['path', 'probe'] as const;
export type IdentityCheck = (typeof IDENTITY_CHECKS)[number];

/** Which token of a label word an engine reads: its first token in context, or tokenised alone (engine/hf/requests.ts). */
export const LABEL_TOKEN_RULES = ['in-context', 'standalone'] as const;
export type LabelTokenRule = (typeof LABEL_TOKEN_RULES)[number];
/** The rule when none is chosen: scoring and the label-token objective pick the same token by it. */
export const DEFAULT_LABEL_TOKEN_RULE: LabelTokenRule = 'in-context';

/** How firstTokenLogprobs tokenises (see engine/hf/requests.ts, encodeFirstToken). */
export interface FirstTokenOptions {
  /** 'in-context' (default): the label's first token as encode(context + label) splits it; 'standalone': encode(label) alone. */
  labelTokens?: LabelTokenRule;
  /** Encode contexts with the tokenizer's special tokens. Default true. */
  addSpecialTokens?: boolean;
  /**
   * Read these token ids (one per candidate, in order) after the context as given, instead of
   * choosing them by labelTokens: study B's hard-coded Llama-2 ids. Each id must decode to its piece,
   * so ids meant for another vocabulary fail instead of reading unrelated tokens.
   */
  fixedTokens?: { ids: number[]; pieces: string[] };
  /**
   * Study A's predecessor's reading position: each context is cut to its first `padTo` tokens,
   * right-padded to `padTo` with the pad token (masked as a key) and read at the last padded
   * position, as transformers computes it without position ids. Default: read the last real token.
   */
  padTo?: number;
}

/**
 * How far above 0 a log-probability may be and still count as one (a server computing log-softmax
 * in half precision can round the top token slightly above 0). Answers beyond it are refused before
 * the evaluation cache stores them.
 */
export const LOGPROB_TOLERANCE = 1e-3;

export interface LanguageModel {
  /** Content identity: a weights hash, or checkpoint path + step. */
  readonly id: string;
  readonly tokenizer: Tokenizer;
  score(reqs: ScoreRequest[]): Promise<ScoreResult[]>;
  /** The papers' label scoring: log-softmax at the last context position, read at each candidate's first token. */
  firstTokenLogprobs(contexts: string[], candidates: string[], opts?: FirstTokenOptions): Promise<number[][]>;
  generate(reqs: GenerateRequest[]): Promise<string[]>;
}

export interface Example { id: string; fields: Record<string, string>; label?: string; target?: string }

/** One measurement: a metric of one checkpoint (run, step) on one test set. */
export interface Score { run: string; step: number; testSet: string; metric: string; value: number; n: number }

/** A checkpoint to evaluate: a model folder, or a LoRA adapter folder on its base model. */
export interface CheckpointRef {
  step: number;
  /** The model folder, or the LoRA adapter folder when `base` is set. */
  dir: string;
  /** For a LoRA adapter: the base model folder it applies to. */
  base?: string;
  /** The folder whose tokenizer files to use, when the checkpoint has none (a Trainer given no tokenizer saves none). */
  tokenizer?: string;
}

/**
 * A loaded model and how to free it. `source` names what answers (the built-in engine, or the
 * servers' URLs); the evaluation cache records it, so answers from one server can be dropped.
 */
export interface ModelHandle { model: LanguageModel; dispose(): void; source?: string }
/** Loads a checkpoint on some engine (the built-in one, or OpenAI-compatible servers). */
export type ModelLoader = ((checkpoint: CheckpointRef) => Promise<ModelHandle>) & {
  /** Throws a clear error when the checkpoint cannot load, without loading it (run before anything is recorded). */
  check?(checkpoint: CheckpointRef): void;
};
