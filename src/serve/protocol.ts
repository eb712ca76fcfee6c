// The request and response shapes of the OpenAI completions API that `genstudy serve` speaks
// (POST /v1/completions; the legacy completions object with echo + logprobs), plus vLLM's
// extensions genstudy's remote engine understands: `prompt_logprobs` and runtime LoRA loading
// (POST /v1/load_lora_adapter, /v1/unload_lora_adapter).
import { z } from 'zod';

const tokenIds = z.array(z.number().int().nonnegative());

export const completionRequestSchema = z.object({
  model: z.string().optional(),
  prompt: z.union([z.string(), z.array(z.string()).min(1), tokenIds.min(1), z.array(tokenIds).min(1)]),
  echo: z.boolean().optional(),
  logprobs: z.number().int().min(0).max(100).nullable().optional(),
  prompt_logprobs: z.number().int().min(0).max(100).nullable().optional(),
  max_tokens: z.number().int().min(0).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
  temperature: z.number().min(0).nullable().optional(),
  // Sampling fields a greedy client sends as neutral values (sampling.ts says which can change an answer).
  top_p: z.number().gt(0).max(1).nullable().optional(),
  top_k: z.number().int().min(-1).nullable().optional(),
  min_p: z.number().min(0).max(1).nullable().optional(),
  repetition_penalty: z.number().gt(0).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  n: z.literal(1).optional(),
  stream: z.literal(false).optional(),
  return_tokens_as_token_ids: z.boolean().optional(),
}).passthrough();

export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const loadAdapterSchema = z.object({ lora_name: z.string().min(1), lora_path: z.string().min(1) });
export const unloadAdapterSchema = z.object({ lora_name: z.string().min(1) });

export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[];
  text_offset: number[];
}

export type PromptLogprob = Record<string, { logprob: number; rank: number; decoded_token: string }> | null;

export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: CompletionLogprobs | null;
  finish_reason: 'length' | 'stop';
  prompt_logprobs?: PromptLogprob[];
}

/** An error answered to a client: HTTP status and OpenAI's error object. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly type = status === 404 ? 'NotFoundError' : 'BadRequestError') {
    super(message);
  }

  body(): { error: { message: string; type: string; code: number } } {
    return { error: { message: this.message, type: this.type, code: this.status } };
  }
}

/** A zod error as one line naming the field. */
export function describeZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`).join('; ');
}
