// POST /v1/completions over the built-in engine: prompts as text or token ids; echo with prompt
// log-probs (OpenAI's `logprobs` object, or vLLM's `prompt_logprobs`); greedy generation with stop
// sequences and max_tokens.
//
// Two engine paths:
// - log-probs asked for (echo + logprobs, prompt_logprobs, or logprobs on generated tokens): full
//   forward passes over prompt (+ generated tokens so far) with the top-k read at every position
//   (prompt-logprobs.ts); each generated token costs one more full pass, which is cheap for the
//   usual scoring request (max_tokens 0 or 1) and slow for long generations with log-probs;
// - plain generation: the engine's KV-cached greedy decoding (engine/builtin/generation.ts).
// Concurrent requests for the same model share engine calls (engine-queue.ts).
import { lengthSortedBatches, cutAtStop, generateBatch, type BuiltinModel, type HfTokenizer } from '../engine/index.ts';
import { EngineQueue } from './engine-queue.ts';
import { TextEncoder } from './text-encoder.ts';
import { promptLogprobs } from './prompt-logprobs.ts';
import { checkContext } from './context-limit.ts';
import { effectiveSampling, SERVE_PROFILES, type ServeProfile } from './sampling.ts';
import {
  HttpError, type CompletionChoice, type CompletionLogprobs, type CompletionRequest, type PromptLogprob,
} from './protocol.ts';

interface Alt { id: number; logprob: number }
interface ScoredToken { id: number; logprob: number; top: Alt[] }

/** `prompt`: whether the prompt's own log-probs are wanted (echo, prompt_logprobs), or only what follows it. */
interface LogprobJob { ids: number[]; steps: number; k: number; stop: string[]; prompt: boolean }
interface LogprobAnswer { prompt: ScoredToken[]; generated: ScoredToken[]; text: string; stopped: boolean; cut?: string }
interface GenerateJob { ids: number[]; steps: number; stop: string[] }

async function logprobRound(model: BuiltinModel, jobs: LogprobJob[]): Promise<LogprobAnswer[]> {
  const k = Math.max(1, ...jobs.map((j) => j.k));
  const eos = model.tokenizer.eosTokenId;
  // A placeholder after the sequence makes the last position's distribution (the next token) come out.
  const PLACEHOLDER = 0;
  const answers: LogprobAnswer[] = jobs.map(() => ({ prompt: [], generated: [], text: '', stopped: false }));
  const first = await promptLogprobs(model, jobs.map((j) => (j.steps > 0 ? [...j.ids, PLACEHOLDER] : j.ids)), k,
    jobs.map((j) => (j.prompt ? 1 : j.ids.length)));
  const active: number[] = [];
  jobs.forEach((j, i) => {
    const r = first[i];
    if (j.prompt) for (let p = 0; p < j.ids.length - 1; p++) answers[i].prompt.push({ id: j.ids[p + 1], logprob: r.logprobs[p], top: r.top[p] });
    if (j.steps > 0) active.push(i);
  });
  let next = new Map(active.map((i) => [i, first[i].top[first[i].top.length - 1]] as const));
  while (next.size > 0) {
    for (const [i, top] of next) {
      const best = top[0];
      const a = answers[i];
      if (best.id === eos) { a.stopped = true; continue; }
      a.generated.push({ id: best.id, logprob: best.logprob, top });
      if (jobs[i].stop.length > 0) {
        const cut = cutAtStop(model.tokenizer.decode(a.generated.map((g) => g.id), { skipSpecialTokens: true }), jobs[i].stop);
        if (cut !== undefined) { a.cut = cut; a.stopped = true; }
      }
    }
    const more = [...next.keys()].filter((i) => !answers[i].stopped && answers[i].generated.length < jobs[i].steps);
    if (more.length === 0) break;
    const rows = more.map((i) => [...jobs[i].ids, ...answers[i].generated.map((g) => g.id), PLACEHOLDER]);
    const got = await promptLogprobs(model, rows, k, rows.map((r) => r.length - 1));
    next = new Map(more.map((i, j) => [i, got[j].top[got[j].top.length - 1]] as const));
  }
  for (const a of answers) a.text = a.cut ?? model.tokenizer.decode(a.generated.map((g) => g.id), { skipSpecialTokens: true });
  return answers;
}

async function generateRound(model: BuiltinModel, jobs: GenerateJob[]): Promise<string[]> {
  const out: string[] = new Array(jobs.length);
  for (const batch of lengthSortedBatches(jobs.map((j) => j.ids.length), model.maxBatchTokens)) {
    const texts = await generateBatch(model, batch.map((i) => jobs[i].ids), batch.map((i) => ({
      prompt: '', maxNewTokens: jobs[i].steps, ...(jobs[i].stop.length > 0 ? { stop: jobs[i].stop } : {}),
    })));
    batch.forEach((i, j) => { out[i] = texts[j]; });
  }
  return out;
}

/** Characters of text allowed per prompt token before tokenising (English BPE text runs ~4 per token). */
export const TEXT_CHARS_PER_TOKEN = 16;

export class CompletionEngine {
  /** Engine rounds run (each may answer many requests). */
  engineCalls = 0;
  private readonly logprobQueue = new EngineQueue<LogprobJob, LogprobAnswer>((m, jobs) => { this.engineCalls++; return logprobRound(m, jobs); });
  private readonly generateQueue = new EngineQueue<GenerateJob, string>((m, jobs) => { this.engineCalls++; return generateRound(m, jobs); });

  private readonly texts = new WeakMap<BuiltinModel, Map<number, string>>();
  /** One text encoder per tokenizer (a base model and its adapters share one). */
  private readonly encoders = new Map<HfTokenizer, TextEncoder>();

  private encoderOf(model: BuiltinModel): TextEncoder {
    let e = this.encoders.get(model.tokenizer);
    if (!e) this.encoders.set(model.tokenizer, (e = new TextEncoder(model.tokenizer)));
    return e;
  }

  /** Stops the tokenising threads. */
  async close(): Promise<void> {
    await Promise.all([...this.encoders.values()].map((e) => e.close()));
    this.encoders.clear();
  }

  /** A token's text, decoded once per model (answers with top-k decode many tokens many times). */
  private tokenText(model: BuiltinModel, id: number): string {
    let m = this.texts.get(model);
    if (!m) this.texts.set(model, (m = new Map()));
    let t = m.get(id);
    if (t === undefined) m.set(id, (t = model.tokenizer.decode([id])));
    return t;
  }

  /**
   * The choices of one validated request on `model`, and its token counts. `maxPromptTokens` bounds
   * the prompt tokens of one request; text prompts are refused before tokenising when longer than
   * TEXT_CHARS_PER_TOKEN characters per allowed token, and tokenised on a worker thread
   * (text-encoder.ts), so other requests (GET /health) are answered meanwhile.
   */
  async complete(model: BuiltinModel, req: CompletionRequest, maxPromptTokens = Infinity,
    profile: ServeProfile = SERVE_PROFILES[0]): Promise<{ choices: CompletionChoice[]; usage: Usage }> {
    req = effectiveSampling(req, profile, model.generationConfig);
    const tok = model.tokenizer;
    const vocab = model.arch.vocabSize;
    const raw = req.prompt;
    const texts = typeof raw === 'string' ? [raw] : typeof raw[0] === 'string' ? (raw as string[]) : undefined;
    let prompts: number[][];
    if (texts) {
      const chars = texts.reduce((n, t) => n + t.length, 0);
      if (chars > maxPromptTokens * TEXT_CHARS_PER_TOKEN) {
        throw new HttpError(413, `the prompt text has ${chars} characters; this server takes at most ${maxPromptTokens} prompt tokens per request ` +
          `(${maxPromptTokens * TEXT_CHARS_PER_TOKEN} characters of text; genstudy serve --max-prompt-tokens raises it)`);
      }
      prompts = await this.encoderOf(model).encode(texts);
    } else {
      prompts = typeof raw[0] === 'number' ? [raw as number[]] : (raw as number[][]);
    }
    const total = prompts.reduce((n, p) => n + p.length, 0);
    if (total > maxPromptTokens) {
      throw new HttpError(413, `the request has ${total} prompt tokens; this server takes at most ${maxPromptTokens} per request ` +
        `(genstudy serve --max-prompt-tokens raises it)`);
    }
    const echo = req.echo === true;
    const maxTokens = req.max_tokens ?? 16;
    if (profile === 'vllm' && echo && (req.prompt_logprobs === undefined || req.prompt_logprobs === null) &&
      req.logprobs !== undefined && req.logprobs !== null) {
      // vLLM asks the engine for prompt log-probs on an echo with logprobs, and answers them on every
      // choice (completion/protocol.py CompletionRequest.to_sampling_params, commit 002032ee2b18).
      req = { ...req, prompt_logprobs: req.logprobs };
    }
    const stop = req.stop === undefined || req.stop === null ? [] : typeof req.stop === 'string' ? [req.stop] : req.stop;
    const k = Math.max(req.logprobs ?? 0, req.prompt_logprobs ?? 0);
    const wantsLogprobs = (req.logprobs !== undefined && req.logprobs !== null) ||
      (req.prompt_logprobs !== undefined && req.prompt_logprobs !== null);
    const maxLength = model.maxLength;
    prompts.forEach((ids, i) => {
      if (ids.length === 0) throw new HttpError(400, `prompt ${i} is empty (no tokens)`);
      const bad = ids.find((t) => t >= vocab);
      if (bad !== undefined) throw new HttpError(400, `prompt ${i}: token id ${bad} is outside the vocabulary (${vocab} entries)`);
    });
    checkContext(prompts, maxTokens, maxLength, profile);
    const base = (i: number): Omit<CompletionChoice, 'text' | 'logprobs' | 'finish_reason'> => ({ index: i });
    if (!wantsLogprobs) {
      // Generation as the engine's generate() does it: the prompt's last tokens that leave room.
      const jobs = prompts.map((ids) => ({ ids: ids.slice(-Math.max(1, maxLength - maxTokens)), steps: maxTokens, stop }));
      const texts = maxTokens > 0 ? await this.generateQueue.submit(model, jobs) : jobs.map(() => '');
      return {
        choices: texts.map((t, i) => ({ ...base(i), text: (echo ? tok.decode(prompts[i]) : '') + t, logprobs: null, finish_reason: 'length' })),
        // The engine returns text only; its tokens are counted by encoding it again.
        usage: usageOf(prompts, texts.map((t) => (t === '' ? 0 : tok.encode(t, { addSpecialTokens: false }).length))),
      };
    }
    const wantsPrompt = (echo && req.logprobs !== undefined && req.logprobs !== null) ||
      (req.prompt_logprobs !== undefined && req.prompt_logprobs !== null);
    const jobs = prompts.map((ids) => ({ ids, steps: Math.max(0, Math.min(maxTokens, maxLength - ids.length)), k, stop, prompt: wantsPrompt }));
    const answers = await this.logprobQueue.submit(model, jobs);
    const asKey = (id: number): string => (req.return_tokens_as_token_ids ? `token_id:${id}` : this.tokenText(model, id));
    const topDict = (t: ScoredToken, n: number): Record<string, number> => {
      const d: Record<string, number> = {};
      for (const alt of [...t.top.slice(0, n), { id: t.id, logprob: t.logprob }]) {
        const key = asKey(alt.id);
        if (!(key in d) || d[key] < alt.logprob) d[key] = alt.logprob;
      }
      return d;
    };
    const choices = answers.map((a, i) => {
      const ids = prompts[i];
      const choice: CompletionChoice = {
        ...base(i),
        text: (echo ? tok.decode(ids) : '') + a.text,
        logprobs: null,
        finish_reason: a.stopped ? 'stop' : 'length',
      };
      if (req.logprobs !== undefined && req.logprobs !== null) {
        const n = req.logprobs;
        const lp: CompletionLogprobs = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
        let offset = 0;
        const push = (id: number, logprob: number | null, top: Record<string, number> | null): void => {
          const text = asKey(id);
          lp.tokens.push(text);
          lp.token_logprobs.push(logprob);
          lp.top_logprobs.push(top);
          lp.text_offset.push(offset);
          offset += req.return_tokens_as_token_ids ? 0 : text.length;
        };
        if (echo) {
          push(ids[0], null, null);
          for (const t of a.prompt) push(t.id, t.logprob, topDict(t, n));
        }
        for (const t of a.generated) push(t.id, t.logprob, topDict(t, n));
        choice.logprobs = lp;
      }
      if (req.prompt_logprobs !== undefined && req.prompt_logprobs !== null) {
        const n = req.prompt_logprobs;
        const entries: PromptLogprob[] = [null];
        for (const t of a.prompt) {
          const e: Record<string, { logprob: number; rank: number; decoded_token: string }> = {};
          t.top.slice(0, n).forEach((alt, r) => {
            e[String(alt.id)] = { logprob: alt.logprob, rank: r + 1, decoded_token: this.tokenText(model, alt.id) };
          });
          if (!(String(t.id) in e)) {
            // Outside the top n: its rank is at least n + 1 (only the top-k are computed).
            const rank = t.top.findIndex((alt) => alt.id === t.id);
            e[String(t.id)] = { logprob: t.logprob, rank: rank >= 0 ? rank + 1 : Math.max(n, t.top.length) + 1,
              decoded_token: this.tokenText(model, t.id) };
          }
          entries.push(e);
        }
        choice.prompt_logprobs = entries;
      }
      return choice;
    });
    return { choices, usage: usageOf(prompts, answers.map((a) => a.generated.length)) };
  }
}

export interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

function usageOf(prompts: number[][], generated: number[]): Usage {
  const p = prompts.reduce((n, ids) => n + ids.length, 0);
  const c = generated.reduce((n, k) => n + k, 0);
  return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
}
