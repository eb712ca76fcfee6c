// The sampling fields of a completions request, as a greedy-only engine can honour them.
//
// vLLM fills every sampling field a request leaves out (null or absent) from the server's defaults,
// which with `--generation-config auto` (its default) are the checkpoint's generation_config.json:
//   vllm/config/model.py ModelConfig.get_diff_sampling_param (repetition_penalty, temperature,
//   top_k, top_p, min_p, max_new_tokens -> max_tokens), applied by
//   vllm/entrypoints/openai/completion/protocol.py CompletionRequest.to_sampling_params
//   ("Priority: user -> server default -> OpenAI default"; commit 002032ee2b18e1f7bd924ec47b62504ba3866063).
// Under greedy decoding (temperature 0) vLLM's SamplingParams ignores top_p, top_k and min_p, so
// they cannot change an answer; the penalties can. The built-in engine decodes greedily without
// penalties, so a request (or, in the vLLM profile, a default it would inherit) asking for a
// temperature or a penalty it cannot apply is refused with a 400 that names the field, never
// answered as if the field were neutral.
import { HttpError, type CompletionRequest } from './protocol.ts';

/** Whose behaviour the server follows where servers differ: its own (the default), or vLLM's (vllm-profile.ts). */
export const SERVE_PROFILES = ['genstudy', 'vllm'] as const;
export type ServeProfile = (typeof SERVE_PROFILES)[number];

/** The neutral value of each field that changes a greedy answer. */
const NEUTRAL = { repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

/** generation_config.json keys vLLM takes as sampling defaults, and the request field each fills. */
const GENERATION_DEFAULTS: Record<string, keyof CompletionRequest> = {
  repetition_penalty: 'repetition_penalty', temperature: 'temperature', top_k: 'top_k', top_p: 'top_p', min_p: 'min_p', max_new_tokens: 'max_tokens',
};

const unset = (v: unknown): boolean => v === undefined || v === null;

/**
 * The request with the fields it left out filled as the profile's server fills them (vLLM: from
 * generation_config.json; genstudy: OpenAI's defaults), then checked: greedy, no penalty.
 */
export function effectiveSampling(
  req: CompletionRequest, profile: ServeProfile, generationConfig: Record<string, unknown> | undefined,
): CompletionRequest {
  const out: Record<string, unknown> = { ...req };
  const inherited = new Set<string>();
  if (profile === 'vllm' && generationConfig) {
    for (const [key, field] of Object.entries(GENERATION_DEFAULTS)) {
      const v = generationConfig[key];
      if (typeof v === 'number' && unset(out[field])) { out[field] = v; inherited.add(field); }
    }
  }
  const from = (field: string): string => (inherited.has(field)
    ? ' (the default vLLM uses for a request that leaves it out: generation_config.json\'s, else OpenAI\'s)'
    : '');
  // vLLM's own default when neither the request nor generation_config.json sets it: 1.0 (sampling).
  if (profile === 'vllm' && unset(out.temperature)) { out.temperature = 1; inherited.add('temperature'); }
  const t = out.temperature;
  if (!unset(t) && t !== 0) {
    throw new HttpError(400, `temperature ${String(t)}${from('temperature')}: genstudy serve decodes greedily; send temperature 0`);
  }
  for (const [field, neutral] of Object.entries(NEUTRAL)) {
    const v = out[field];
    if (!unset(v) && v !== neutral) {
      throw new HttpError(400, `${field} ${String(v)}${from(field)}: genstudy serve decodes greedily without penalties; send ${field} ${neutral}`);
    }
  }
  return out as CompletionRequest;
}
