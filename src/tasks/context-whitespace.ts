// lm-evaluation-harness's rule for loglikelihood requests (LM._encode_pair): trailing whitespace of
// the context is moved onto the start of the continuation before tokenising, so that a BPE
// tokenizer sees " entailment" as one word-initial token instead of a lone " " then "entailment".
// Tasks emit contexts exactly as rendered; the engine applies this to `score` requests only.
// First-token requests follow the same split when their label tokens are in context (the default).
import type { ScoreRequest } from '../types.ts';
import { pythonRstrip } from '../python-whitespace.ts';

export function moveTrailingWhitespace(req: ScoreRequest): ScoreRequest {
  const kept = pythonRstrip(req.context);
  const n = req.context.length - kept.length;
  if (n === 0) return req;
  return { context: kept, continuation: req.context.slice(kept.length) + req.continuation };
}
