// RemoteModel: the LanguageModel of src/types.ts over OpenAI-compatible /v1/completions servers
// (vLLM, `genstudy serve`). Tokenisation is genstudy's (the model folder's tokenizer.json), and
// prompts go to the server as token ids, so context and continuation split exactly as in the
// built-in engine (engine/builtin/requests.ts encodePair, lm-evaluation-harness semantics).
//
// - score(): the whole sequence (context + continuation) echoed with `logprobs: 1`; the
//   continuation's log-probs are the last tokens' prompt log-probs, is_greedy from the top-1 at
//   each of those positions (compared by value: top_logprobs keys are token strings).
// - firstTokenLogprobs(): a constrained continuation: for each context and each candidate, the
//   context followed by the candidate's first token, echoed; the last prompt log-prob is the
//   candidate's log-softmax at the context's last position. Exact for any vocabulary and any
//   number of candidates (top_logprobs would be capped by the server's max_logprobs, and its keys
//   are strings); costs contexts x candidates prompts, which vLLM's prefix caching makes cheap.
// - generate(): greedy (temperature 0) with the request's stop sequences and max_tokens; the prompt
//   keeps its last tokens that leave room for the generation, as the built-in engine does.
// Requests go out `promptsPerRequest` prompts per HTTP request, spread over the endpoints.
import { encodePair } from '../builtin/requests.ts';
import { UserError } from '../../errors.ts';
import type { GenerateRequest, LanguageModel, ScoreRequest, ScoreResult, Tokenizer } from '../../types.ts';
import type { NotFoundHook, RemoteEndpoints } from './endpoints.ts';
import { choicesOf, choiceText, promptScores, type PromptScores } from './responses.ts';

export interface RemoteModelOptions {
  endpoints: RemoteEndpoints;
  /** The `model` field: the served model's name, or a loaded LoRA adapter's name. */
  model: string;
  tokenizer: Tokenizer;
  /** The content identity (the local checkpoint's, see evaluate/model-identity.ts). */
  id: string;
  /** The model's longest sequence (config.json's position limit). */
  maxLength: number;
  /** Prompts per HTTP request (default 16). */
  promptsPerRequest?: number;
  /** max_tokens of scoring requests: 1 (default; what vLLM and lm-evaluation-harness use) or 0. */
  scoringMaxTokens?: 0 | 1;
  /** Called when an endpoint says the model does not exist (a restarted server lost a run-time adapter): reload it there. */
  reload?: (url: string) => Promise<void>;
  /** Ask for log-probs as OpenAI's echo + logprobs (default) or as vLLM's prompt_logprobs. */
  logprobsForm?: 'echo' | 'prompt_logprobs';
}

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
  private readonly endpoints: RemoteEndpoints;
  private readonly perRequest: number;
  private readonly scoringMaxTokens: 0 | 1;
  private readonly form: 'echo' | 'prompt_logprobs';
  private readonly onNotFound?: NotFoundHook;

  constructor(opts: RemoteModelOptions) {
    this.id = opts.id;
    this.tokenizer = opts.tokenizer;
    this.model = opts.model;
    this.maxLength = opts.maxLength;
    this.endpoints = opts.endpoints;
    this.perRequest = opts.promptsPerRequest ?? 16;
    this.scoringMaxTokens = opts.scoringMaxTokens ?? 1;
    this.form = opts.logprobsForm ?? 'echo';
    const reload = opts.reload;
    if (reload) this.onNotFound = async (url, message) => { if (!/does not exist|not found|not loaded/i.test(message)) return false; await reload(url); return true; };
    if (!Number.isInteger(this.perRequest) || this.perRequest < 1) throw new UserError(`promptsPerRequest ${this.perRequest}: expected a positive whole number`);
  }

  /** Prompt log-probs of each token-id sequence (sequences of one token have none). */
  async promptLogprobs(seqs: number[][]): Promise<PromptScores[]> {
    const order = seqs.map((_, i) => i).sort((a, b) => seqs[b].length - seqs[a].length);
    const out: PromptScores[] = new Array(seqs.length);
    const form = this.form === 'echo' ? { echo: true, logprobs: 1 } : { prompt_logprobs: 1 };
    await Promise.all(chunks(order, this.perRequest).map(async (group) => {
      const prompts = group.map((i) => seqs[i]);
      const answer = await this.endpoints.post('/v1/completions', {
        model: this.model, prompt: prompts, max_tokens: this.scoringMaxTokens, temperature: 0, ...form,
      }, undefined, this.onNotFound);
      const server = this.endpoints.urls.join(', ');
      const choices = choicesOf(answer, server, prompts.length);
      group.forEach((i, j) => { out[i] = promptScores(choices[j], prompts[j], server, `choices[${j}]`); });
    }));
    return out;
  }

  async score(reqs: ScoreRequest[]): Promise<ScoreResult[]> {
    const pairs = reqs.map((r) => encodePair(this.tokenizer, r, this.maxLength));
    const live = pairs.map((p, i) => i).filter((i) => pairs[i].targets.length > 0);
    const scored = await this.promptLogprobs(live.map((i) => [...pairs[i].input, pairs[i].targets[pairs[i].targets.length - 1]]));
    const results: ScoreResult[] = pairs.map(() => ({ logprob: 0, tokens: 0, isGreedy: true }));
    live.forEach((i, j) => {
      const n = pairs[i].targets.length;
      const lps = scored[j].logprobs.slice(-n);
      const greedy = scored[j].greedy.slice(-n);
      if (greedy.some((g) => g === undefined)) {
        throw new UserError(`the servers at ${this.endpoints.urls.join(', ')} returned no top log-probs, so whether a continuation is greedy is unknown`);
      }
      results[i] = { logprob: lps.reduce((a, b) => a + b, 0), tokens: n, isGreedy: greedy.every((g) => g === true) };
    });
    return results;
  }

  async firstTokenLogprobs(contexts: string[], candidates: string[]): Promise<number[][]> {
    const cand = candidates.map((c) => {
      const ids = this.tokenizer.encode(c, { addSpecialTokens: false });
      if (ids.length === 0) throw new UserError(`candidate ${JSON.stringify(c)} encodes to no tokens`);
      return ids[0];
    });
    const distinct = [...new Set(cand)];
    const rows = contexts.map((c, i) => {
      const ids = this.tokenizer.encode(c).slice(-this.maxLength);
      if (ids.length === 0) throw new UserError(`context ${i} (${JSON.stringify(c.slice(0, 40))}) encodes to no tokens`);
      return ids;
    });
    const seqs = rows.flatMap((r) => distinct.map((t) => [...r, t]));
    const scored = await this.promptLogprobs(seqs);
    return rows.map((_, i) => cand.map((t) => {
      const s = scored[i * distinct.length + distinct.indexOf(t)];
      return s.logprobs[s.logprobs.length - 1];
    }));
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
      const room = Math.max(1, this.maxLength - r.maxNewTokens);
      const prompts = group.map((i) => {
        const ids = this.tokenizer.encode(reqs[i].prompt).slice(-room);
        return ids.length > 0 ? ids : [this.tokenizer.bosTokenId ?? this.tokenizer.eosTokenId ?? 0];
      });
      const stop = (r.stop ?? []).filter((s) => s !== '');
      const answer = await this.endpoints.post('/v1/completions', {
        model: this.model, prompt: prompts, max_tokens: r.maxNewTokens, temperature: 0, ...(stop.length > 0 ? { stop } : {}),
      }, undefined, this.onNotFound);
      const choices = choicesOf(answer, server, prompts.length);
      group.forEach((i, j) => { out[i] = choiceText(choices[j], server, `choices[${j}]`); });
    }));
    return out;
  }
}
