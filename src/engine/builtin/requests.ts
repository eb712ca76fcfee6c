// Turning score requests into token sequences with lm-evaluation-harness's loglikelihood semantics
// (lm_eval/api/model.py `_encode_pair`, lm_eval/models/huggingface.py `_loglikelihood_tokens`).
import { UserError } from '../../errors.ts';
import type { ScoreRequest, Tokenizer } from '../../types.ts';

export interface EncodedPair {
  /** Model input: (context + continuation)[:-1], left-truncated to the model's length. */
  input: number[];
  /** Continuation token ids, predicted at the last `targets.length` input positions. */
  targets: number[];
}

/**
 * 1. Trailing whitespace of the context moves to the front of the continuation.
 * 2. whole = encode(context + continuation), ctx = encode(context), cont = whole[len(ctx):]
 *    (encoding with the tokenizer's own special tokens, e.g. Llama's BOS).
 * 3. An empty context becomes the prefix token (BOS, else EOS) and the continuation is encoded alone;
 *    so does a context of whitespace only, once its whitespace has moved.
 */
export function encodePair(tok: Tokenizer, req: ScoreRequest, maxLength: number): EncodedPair {
  let { context, continuation } = req;
  let ctx: number[];
  let cont: number[];
  if (context === '') {
    ctx = [prefixToken(tok)];
    cont = tok.encode(continuation, { addSpecialTokens: false });
  } else {
    const trailing = /\s+$/u.exec(context);
    if (trailing) {
      context = context.slice(0, trailing.index);
      continuation = trailing[0] + continuation;
    }
    const whole = tok.encode(context + continuation);
    ctx = tok.encode(context);
    cont = whole.slice(ctx.length);
    // A whitespace-only context leaves no token to predict the first continuation token from (the
    // harness's slicing goes negative there); it gets the prefix token an empty context gets.
    if (ctx.length === 0) ctx = [prefixToken(tok)];
  }
  // As the harness does: keep the last maxLength + 1 tokens, then drop the final one.
  const all = [...ctx, ...cont].slice(-(maxLength + 1));
  return { input: all.slice(0, -1), targets: cont.slice(-(maxLength)) };
}

/** The token an empty context stands for: BOS, else EOS (lm-evaluation-harness's prefix_token_id). */
function prefixToken(tok: Tokenizer): number {
  const prefix = tok.bosTokenId ?? tok.eosTokenId;
  if (prefix === undefined) throw new UserError('the tokenizer has neither a BOS nor an EOS token to stand for an empty context');
  return prefix;
}
