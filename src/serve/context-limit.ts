// How long a completions request may be, on every path (generation, echo scoring, prompt_logprobs).
//
// vLLM (vllm/renderers/params.py TokenizeParams.__post_init__ and _token_len_check, commit
// 017638d70159114c71e4c28cc95f54c3f7699079, with the parameter names of
// vllm/entrypoints/openai/completion/protocol.py CompletionRequest.build_tok_params, commit
// 002032ee2b18e1f7bd924ec47b62504ba3866063): max_tokens above max_model_len is a 400, and so is
// a prompt longer than max_model_len - max_tokens; nothing is cut.
// genstudy's own profile: max_tokens above the model's length is a 400 as in vLLM; a prompt may be
// one token longer than the model reads (echo scoring's last token is only predicted, never read),
// and longer ones are a 400 whatever the path; a generation keeps the prompt's last tokens that
// leave room for max_tokens, as the built-in engine's generate() does.
import { HttpError } from './protocol.ts';
import type { ServeProfile } from './sampling.ts';

export function checkContext(prompts: number[][], maxTokens: number, maxLength: number, profile: ServeProfile): void {
  if (maxTokens > maxLength) {
    throw new HttpError(400, profile === 'vllm'
      // vLLM's text, its f-string's "max_total_tokens=" included.
      ? `max_tokens=${maxTokens}cannot be greater than max_model_len=max_total_tokens=${maxLength}. Please request fewer output tokens.`
      : `max_tokens=${maxTokens} cannot be greater than the model's length (${maxLength} tokens). Please request fewer output tokens.`);
  }
  const limit = profile === 'vllm' ? maxLength - maxTokens : maxLength + 1;
  prompts.forEach((ids, i) => {
    if (ids.length <= limit) return;
    throw new HttpError(400, profile === 'vllm'
      ? `You passed ${ids.length} input tokens and requested ${maxTokens} output tokens. However, the model's context length is only ` +
        `${maxLength} tokens, resulting in a maximum input length of ${limit} tokens. Please reduce the length of the input prompt.`
      : `prompt ${i} has ${ids.length} tokens; this model reads at most ${maxLength} (one more when echo-scoring: the last token is only predicted)`);
  });
}
