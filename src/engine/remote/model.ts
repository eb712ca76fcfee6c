// RemoteModel: the LanguageModel of src/types.ts over OpenAI-compatible /v1/completions servers
// (vLLM, `genstudy serve`). Tokenisation is genstudy's (the model folder's tokenizer.json), and
// prompts go to the server as token ids, so context and continuation split exactly as in the
// built-in engine (engine/hf/requests.ts encodePair, lm-evaluation-harness semantics).
//
// - score(): the whole sequence (context + continuation) echoed with `logprobs: 1`; the
//   continuation's log-probs are the last tokens' prompt log-probs, is_greedy from the top-1 at
//   each of those positions (compared by value: top_logprobs keys are token strings).
// - firstTokenLogprobs(): first the top log-probs after each context (one generated token,
//   `logprobs: firstTokenTopK` with vLLM's return_tokens_as_token_ids, so keys are token ids);
//   candidate tokens chosen per context by encodeFirstToken (in context by default);
//   candidates outside that top-k (or all, when the server keys by text) by constrained
//   continuation: the context followed by the candidate's first token, echoed, whose last prompt
//   log-prob is the candidate's log-softmax at the context's last position. Exact either way.
// - generate(): greedy (temperature 0) with the request's stop sequences and max_tokens; the prompt
//   keeps its last tokens that leave room for the generation, as the built-in engine does.
// Requests go out `promptsPerRequest` prompts per HTTP request, spread over the endpoints.
import { encodeFirstTokens, encodePair } from '../hf/requests.ts';
import { UserError } from '../../errors.ts';
import type { FirstTokenOptions, GenerateRequest, LanguageModel, ScoreRequest, ScoreResult, Tokenizer } from '../../types.ts';
import { RemoteError, type NotFoundHook, type RemoteEndpoints } from './endpoints.ts';
import { choicesOf, choiceText, logprobValue, promptScores, type PromptScores } from './responses.ts';

export interface RemoteModelOptions {
  endpoints: RemoteEndpoints;
  /** The `model` field: the served model's name, or a loaded LoRA adapter's name. */
  model: string;
  tokenizer: Tokenizer;
  /** The content identity (the local checkpoint's, see engine/model-identity.ts). */
  id: string;
  /** The model's longest sequence (config.json's position limit). */
  maxLength: number;
  /**
   * The server's context length (vLLM's max_model_len, from /v1/models; default maxLength): every
   * prompt is fitted within it less the request's max_tokens, as vLLM requires.
   */
  contextLimit?: number;
  /** Prompts per HTTP request (default 16). */
  promptsPerRequest?: number;
  /** max_tokens of scoring requests: 1 (default; what vLLM and lm-evaluation-harness use) or 0 (echo only: vLLM refuses 0 without echo). */
  scoringMaxTokens?: 0 | 1;
  /**
   * First-token scoring asks for this many top log-probs after each context (default 20, vLLM's
   * default max_logprobs) and scores only candidates outside them by constrained continuation;
   * 0: constrained continuation for every candidate.
   */
  firstTokenTopK?: number;
  /** Called when an endpoint says the model does not exist (a restarted server lost a run-time adapter): reload it there. */
  reload?: (url: string) => Promise<void>;
  /** Ask for log-probs as OpenAI's echo + logprobs (default) or as vLLM's prompt_logprobs. */
  logprobsForm?: 'echo' | 'prompt_logprobs';
}

/**
 * The first generated position's top log-probs by token id, when the keys are "token_id:N"
 * (undefined when the server keys them by text: the caller falls back to constrained continuation).
 * Every value is checked before it can be cached: a log-probability, at most `k` + 1 entries (vLLM
 * adds the sampled token when it is outside the top k), whole-number ids.
 */
function topById(choice: Record<string, unknown>, k: number, server: string, where: string): Map<number, number> | undefined {
  const lp = choice.logprobs as { top_logprobs?: unknown } | null | undefined;
  const first = Array.isArray(lp?.top_logprobs) ? (lp.top_logprobs as unknown[])[0] : undefined;
  if (typeof first !== 'object' || first === null) return undefined;
  const entries = Object.entries(first);
  if (entries.length === 0 || !entries.every(([key]) => key.startsWith('token_id:'))) return undefined;
  if (entries.length > k + 1) {
    throw new RemoteError(`the server at ${server}: ${where}.logprobs.top_logprobs[0] has ${entries.length} entries for logprobs ${k}`);
  }
  const m = new Map<number, number>();
  for (const [key, v] of entries) {
    const id = /^token_id:(\d+)$/.exec(key);
    if (!id || !Number.isSafeInteger(Number(id[1]))) {
      throw new RemoteError(`the server at ${server}: ${where}.logprobs.top_logprobs[0] has key ${JSON.stringify(key)}, expected "token_id:N"`);
    }
    m.set(Number(id[1]), logprobValue(v, server, `${where}.logprobs.top_logprobs[0][${JSON.stringify(key)}]`));
  }
  return m;
}

/**
 * Every sampling field that could change a greedy answer, sent explicitly: vLLM fills each field a
 * request leaves out from the checkpoint's generation_config.json (serve/sampling.ts cites where),
 * so a repetition_penalty shipped with a checkpoint would otherwise change its greedy output.
 * top_k -1 is "off" in every vLLM release (newer ones also read 0 so).
 */
export const GREEDY = { temperature: 0, top_p: 1, top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class RemoteModel implements LanguageModel {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  readonly model: string;
  readonly maxLength: number;
  /** The longest context sent: the server's limit less the longest max_tokens sent with it and the scored token (see fit). */
  private readonly window: number;
  private readonly contextLimit: number;
  private readonly endpoints: RemoteEndpoints;
  private readonly perRequest: number;
  private readonly scoringMaxTokens: 0 | 1;
  private readonly form: 'echo' | 'prompt_logprobs';
  private readonly onNotFound?: NotFoundHook;
  private readonly firstTokenTopK: number;

  constructor(opts: RemoteModelOptions) {
    this.id = opts.id;
    this.tokenizer = opts.tokenizer;
    this.model = opts.model;
    this.maxLength = opts.maxLength;
    this.endpoints = opts.endpoints;
    this.perRequest = opts.promptsPerRequest ?? 16;
    this.scoringMaxTokens = opts.scoringMaxTokens ?? 1;
    this.form = opts.logprobsForm ?? 'echo';
    this.firstTokenTopK = opts.firstTokenTopK ?? 20;
    if (this.scoringMaxTokens === 0 && this.form === 'prompt_logprobs') {
      throw new UserError(
        'scoringMaxTokens 0 with prompt_logprobs: vLLM answers 400 to max_tokens 0 without echo; use scoringMaxTokens 1 or the echo form');
    }
    this.contextLimit = Math.min(opts.maxLength, opts.contextLimit ?? opts.maxLength);
    // Scoring sends context + one scored token with max_tokens (scoringMaxTokens, 1 for the top-k
    // request); vLLM takes prompts up to contextLimit - max_tokens, so the context keeps its last
    // contextLimit - 1 - max_tokens tokens, cut from the left as the built-in engine cuts at its limit.
    this.window = this.contextLimit - 1 - Math.max(1, this.scoringMaxTokens);
    if (this.window < 1) throw new UserError(`the server's context length ${this.contextLimit} leaves no room for a prompt`);
    const reload = opts.reload;
    if (reload) this.onNotFound = async (url, message) => {
      if (!/does not exist|not found|not loaded/i.test(message)) return false;
      await reload(url);
      return true;
    };
    if (!Number.isInteger(this.perRequest) || this.perRequest < 1) {
      throw new UserError(`promptsPerRequest ${this.perRequest}: expected a positive whole number`);
    }
  }

  /** Prompt log-probs of each token-id sequence (sequences of one token have none). */
  async promptLogprobs(seqs: number[][]): Promise<PromptScores[]> {
    const order = seqs.map((_, i) => i).sort((a, b) => seqs[b].length - seqs[a].length);
    const out: PromptScores[] = new Array(seqs.length);
    const form = this.form === 'echo' ? { echo: true, logprobs: 1 } : { prompt_logprobs: 1 };
    await Promise.all(chunks(order, this.perRequest).map(async (group) => {
      const prompts = group.map((i) => seqs[i]);
      const answer = await this.endpoints.post('/v1/completions', {
        model: this.model, prompt: prompts, max_tokens: this.scoringMaxTokens, ...GREEDY, ...form,
      }, undefined, this.onNotFound);
      const server = this.endpoints.urls.join(', ');
      const choices = choicesOf(answer, server, prompts.length);
      group.forEach((i, j) => { out[i] = promptScores(choices[j], prompts[j], server, `choices[${j}]`); });
    }));
    return out;
  }

  async score(reqs: ScoreRequest[]): Promise<ScoreResult[]> {
    const pairs = reqs.map((r) => encodePair(this.tokenizer, r, this.window));
    const live = pairs.map((p, i) => i).filter((i) => pairs[i].targets.length > 0);
    const scored = await this.promptLogprobs(live.map((i) => [...pairs[i].input, pairs[i].targets[pairs[i].targets.length - 1]]));
    const results: ScoreResult[] = pairs.map(() => ({ logprob: 0, tokens: 0, isGreedy: true }));
    live.forEach((i, j) => {
      const n = pairs[i].targets.length;
      const lps = scored[j].logprobs.slice(-n);
      const greedy = scored[j].greedy.slice(-n);
      if (greedy.some((g) => g === undefined)) {
        throw new UserError(
          `the servers at ${this.endpoints.urls.join(', ')} returned no top log-probs, so whether a continuation is greedy is unknown`);
      }
      results[i] = { logprob: lps.reduce((a, b) => a + b, 0), tokens: n, isGreedy: greedy.every((g) => g === true) };
    });
    return results;
  }

  async firstTokenLogprobs(contexts: string[], candidates: string[], opts: FirstTokenOptions = {}): Promise<number[][]> {
    if (opts.padTo !== undefined) {
      throw new UserError('reading at a padded position (padTo, study A\'s replay) needs the built-in engine; a server reads the last real token');
    }
    const enc = encodeFirstTokens(this.tokenizer, contexts, candidates, opts, this.window);
    const rows = enc.map((e) => e.context);
    const out: (number | undefined)[][] = rows.map(() => candidates.map(() => undefined));
    if (this.firstTokenTopK > 0) {
      const tops = await this.nextTokenTop(rows);
      tops.forEach((top, i) => { if (top) enc[i].candidates.forEach((t, j) => { out[i][j] = top.get(t); }); });
    }
    // The rest by constrained continuation: context + the candidate's first token, echoed.
    const missing: [number, number][] = [];
    const seen = new Map<string, number>();
    const seqs: number[][] = [];
    out.forEach((row, i) => row.forEach((v, j) => {
      if (v !== undefined) return;
      const t = enc[i].candidates[j];
      const key = `${i}:${t}`;
      if (!seen.has(key)) { seen.set(key, seqs.length); seqs.push([...rows[i], t]); }
      missing.push([i, j]);
    }));
    if (seqs.length > 0) {
      const scored = await this.promptLogprobs(seqs);
      for (const [i, j] of missing) {
        const s = scored[seen.get(`${i}:${enc[i].candidates[j]}`)!];
        out[i][j] = s.logprobs[s.logprobs.length - 1];
      }
    }
    return out as number[][];
  }

  /**
   * The top-k log-probs of the token after each row (one generated token, its top_logprobs keyed
   * by token id through vLLM's return_tokens_as_token_ids), or undefined where the server did not
   * give them by id.
   */
  private async nextTokenTop(rows: number[][]): Promise<(Map<number, number> | undefined)[]> {
    const out: (Map<number, number> | undefined)[] = new Array(rows.length);
    const server = this.endpoints.urls.join(', ');
    await Promise.all(chunks(rows.map((_, i) => i), this.perRequest).map(async (group) => {
      const prompts = group.map((i) => rows[i]);
      const answer = await this.endpoints.post('/v1/completions', {
        model: this.model, prompt: prompts, max_tokens: 1, ...GREEDY, logprobs: this.firstTokenTopK, return_tokens_as_token_ids: true,
      }, undefined, this.onNotFound);
      const choices = choicesOf(answer, server, prompts.length);
      group.forEach((i, j) => { out[i] = topById(choices[j], this.firstTokenTopK, server, `choices[${j}]`); });
    }));
    return out;
  }

  async generate(reqs: GenerateRequest[]): Promise<string[]> {
    const out: string[] = new Array(reqs.length);
    // One HTTP request carries prompts with the same budget and stop sequences.
    const groups = new Map<string, number[]>();
    reqs.forEach((r, i) => {
      const key = JSON.stringify([r.maxNewTokens, r.stop ?? []]);
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const server = this.endpoints.urls.join(', ');
    await Promise.all([...groups.values()].flatMap((idx) => chunks(idx, this.perRequest)).map(async (group) => {
      const r = reqs[group[0]];
      if (r.maxNewTokens <= 0) { for (const i of group) out[i] = ''; return; }
      // Within the server's limit: max_tokens leaves at least one prompt token, the prompt keeps its last tokens that fit.
      const maxTokens = Math.min(r.maxNewTokens, this.contextLimit - 1);
      const room = this.contextLimit - maxTokens;
      const prompts = group.map((i) => {
        const ids = this.tokenizer.encode(reqs[i].prompt, { addSpecialTokens: reqs[i].addSpecialTokens ?? true }).slice(-room);
        return ids.length > 0 ? ids : [this.tokenizer.bosTokenId ?? this.tokenizer.eosTokenId ?? 0];
      });
      const stop = (r.stop ?? []).filter((s) => s !== '');
      const answer = await this.endpoints.post('/v1/completions', {
        model: this.model, prompt: prompts, max_tokens: maxTokens, ...GREEDY, ...(stop.length > 0 ? { stop } : {}),
      }, undefined, this.onNotFound);
      const choices = choicesOf(answer, server, prompts.length);
      group.forEach((i, j) => { out[i] = choiceText(choices[j], server, `choices[${j}]`); });
    }));
    return out;
  }
}
