// Reading completions answers: the prompt tokens' log-probs from OpenAI's legacy `logprobs` object
// (echo: token_logprobs, with null for the first token, and top_logprobs) or from vLLM's
// `prompt_logprobs` (a list of null | {token id: {logprob, rank}}), checked for shape, with errors
// that name the server and say what is missing.
import { LOGPROB_TOLERANCE } from '../../types.ts';
import { RemoteError } from './endpoints.ts';

export interface PromptScores {
  /** log P(prompt[i] | prompt[:i]) for i = 1..n-1. */
  logprobs: number[];
  /** Per position i = 1..n-1: whether prompt[i] was the most likely token there (undefined when the server gave no top log-probs). */
  greedy: (boolean | undefined)[];
}

const NO_LOGPROBS = 'start the server with prompt log-probs enabled (vLLM\'s OpenAI server answers echo + logprobs; ' +
  'llama.cpp\'s and most hosted APIs do not), or serve the model with `genstudy serve <model folder>`';

// Scores equal up to float noise count as a tie for the top token (the server computes both alike).
const TIE = 1e-6;


function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The choices of a completions answer, one per prompt, in prompt order. */
export function choicesOf(answer: unknown, server: string, prompts: number): Record<string, unknown>[] {
  if (!isObject(answer) || !Array.isArray(answer.choices)) {
    throw new RemoteError(`the server at ${server} answered /v1/completions without a "choices" list: ${JSON.stringify(answer).slice(0, 200)}`);
  }
  const choices = answer.choices as unknown[];
  if (choices.length !== prompts) {
    throw new RemoteError(`the server at ${server} answered ${choices.length} choices for ${prompts} prompts (it must accept a list of ` +
      `token-id prompts, n = 1)`);
  }
  const ordered: Record<string, unknown>[] = new Array(prompts);
  choices.forEach((c, i) => {
    if (!isObject(c)) throw new RemoteError(`the server at ${server}: choices[${i}] is not an object`);
    const index = typeof c.index === 'number' ? c.index : i;
    if (!Number.isInteger(index) || index < 0 || index >= prompts || ordered[index]) {
      throw new RemoteError(`the server at ${server}: choices[${i}] has index ${JSON.stringify(c.index)} (expected each of 0..${prompts - 1} once)`);
    }
    ordered[index] = c;
  });
  return ordered;
}

/** A log-probability from a server: a finite number <= 0 (within LOGPROB_TOLERANCE), else a clear error. */
export function logprobValue(v: unknown, server: string, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v > LOGPROB_TOLERANCE) {
    throw new RemoteError(`the server at ${server}: ${where} is ${JSON.stringify(v)}, not a log-probability (a finite number <= 0)`);
  }
  return v;
}

/** Every value of a top-log-probs entry checked; the largest returned (-Infinity when empty). */
function topValues(entry: Record<string, unknown>, server: string, where: string, read: (x: unknown) => unknown = (x) => x): number {
  let best = -Infinity;
  for (const [k, x] of Object.entries(entry)) best = Math.max(best, logprobValue(read(x), server, `${where}[${JSON.stringify(k)}]`));
  return best;
}

/** The prompt's log-probs of one choice (a prompt of `ids`), from prompt_logprobs or echoed logprobs. */
export function promptScores(choice: Record<string, unknown>, ids: number[], server: string, where: string): PromptScores {
  const n = ids.length;
  if (Array.isArray(choice.prompt_logprobs)) {
    const pl = choice.prompt_logprobs as unknown[];
    if (pl.length !== n) {
      throw new RemoteError(`the server at ${server}: ${where}.prompt_logprobs has ${pl.length} entries for a prompt of ${n} tokens`);
    }
    const logprobs: number[] = [];
    const greedy: (boolean | undefined)[] = [];
    for (let i = 1; i < n; i++) {
      const entry = pl[i];
      if (!isObject(entry)) {
        throw new RemoteError(`the server at ${server}: ${where}.prompt_logprobs[${i}] is ${JSON.stringify(entry)}, expected {token id: {logprob}}`);
      }
      const own = entry[String(ids[i])];
      if (!isObject(own)) throw new RemoteError(`the server at ${server}: ${where}.prompt_logprobs[${i}] lacks the prompt's token ${ids[i]}`);
      const lp = logprobValue(own.logprob, server, `${where}.prompt_logprobs[${i}]["${ids[i]}"].logprob`);
      logprobs.push(lp);
      for (const [k, e] of Object.entries(entry)) {
        if (!/^\d+$/.test(k) || !isObject(e)) {
          throw new RemoteError(`the server at ${server}: ${where}.prompt_logprobs[${i}] has entry ${JSON.stringify(k)}: ` +
            `${JSON.stringify(e)?.slice(0, 80)}, expected {token id: {logprob, rank}}`);
        }
        if (e.rank !== undefined && !(Number.isInteger(e.rank) && (e.rank as number) >= 1)) {
          throw new RemoteError(`the server at ${server}: ${where}.prompt_logprobs[${i}]["${k}"].rank is ${JSON.stringify(e.rank)}, ` +
            `expected a whole number >= 1`);
        }
      }
      const best = topValues(entry, server, `${where}.prompt_logprobs[${i}]`, (e) => (e as Record<string, unknown>).logprob);
      greedy.push(typeof own.rank === 'number' ? own.rank === 1 || lp >= best - TIE : lp >= best - TIE);
    }
    return { logprobs, greedy };
  }
  const lp = choice.logprobs;
  if (!isObject(lp) || !Array.isArray(lp.token_logprobs)) {
    throw new RemoteError(`the server at ${server} returned no prompt log-probs (${where}.logprobs.token_logprobs is missing): ${NO_LOGPROBS}`);
  }
  const tl = lp.token_logprobs as unknown[];
  // Echo returns the prompt's tokens first, then any generated ones.
  if (tl.length < n) {
    throw new RemoteError(`the server at ${server}: ${where}.logprobs.token_logprobs has ${tl.length} entries for an echoed prompt of ${n} tokens ` +
      '(it must echo the prompt with its log-probs)');
  }
  const top = Array.isArray(lp.top_logprobs) ? (lp.top_logprobs as unknown[]) : undefined;
  const logprobs: number[] = [];
  const greedy: (boolean | undefined)[] = [];
  for (let i = 1; i < n; i++) {
    const v = logprobValue(tl[i], server, `${where}.logprobs.token_logprobs[${i}]`);
    logprobs.push(v);
    const t = top?.[i];
    if (t !== undefined && t !== null && !isObject(t)) throw new RemoteError(
      `the server at ${server}: ${where}.logprobs.top_logprobs[${i}] is ${JSON.stringify(t).slice(0, 80)}, expected {token: log-prob}`);
    // Keys are token strings (ambiguous), so the top is judged by value: the prompt token is the
    // greedy one when nothing scores above it.
    greedy.push(isObject(t) && Object.keys(t).length > 0 ? v >= topValues(t, server, `${where}.logprobs.top_logprobs[${i}]`) - TIE : undefined);
  }
  return { logprobs, greedy };
}

/** The generated text of one choice. */
export function choiceText(choice: Record<string, unknown>, server: string, where: string): string {
  if (typeof choice.text !== 'string') {
    throw new RemoteError(`the server at ${server}: ${where}.text is ${JSON.stringify(choice.text)}, expected the generated text`);
  }
  return choice.text;
}
