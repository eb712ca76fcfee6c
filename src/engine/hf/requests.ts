// Turning score requests into token sequences with lm-evaluation-harness's loglikelihood semantics
// (lm_eval/api/model.py `_encode_pair`, lm_eval/models/huggingface.py `_loglikelihood_tokens`).
import { UserError } from '../../errors.ts';
import { DEFAULT_LABEL_TOKEN_RULE, type LabelTokenRule, type ScoreRequest, type Tokenizer } from '../../types.ts';

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

/**
 * How a label word's first token is chosen for first-token scoring and for the classification
 * training target (see src/tasks/task.ts, LabelTokens):
 * - 'in-context': lm-evaluation-harness's split of the pair (context, label): the context's trailing
 *   whitespace moves onto the label, whole = encode(context + label), and the label's tokens are
 *   whole[len(encode(context)):]; the model reads encode(context), the context without its trailing
 *   whitespace. With a SentencePiece tokenizer "### Sentiment:" + "positive" gives "pos", the token
 *   study B's released code hard-coded (evaluate_cross.py target_ids).
 * - 'standalone': encode(label) on its own, the context read as given ("▁positive" with Llama-2).
 */
export type { LabelTokenRule };

export interface FirstTokenEncoding {
  /** What the model reads, left-truncated to maxLength. */
  context: number[];
  /** Per candidate, the token whose log-probability is read after the context. */
  candidates: number[];
}

export function encodeFirstToken(
  tok: Tokenizer, context: string, candidates: readonly string[],
  opts: { labelTokens?: LabelTokenRule; addSpecialTokens?: boolean; fixedTokens?: { ids: number[]; pieces: string[] } }, maxLength: number,
): FirstTokenEncoding {
  const special = { addSpecialTokens: opts.addSpecialTokens ?? true };
  if (opts.fixedTokens) {
    const { ids, pieces } = opts.fixedTokens;
    if (ids.length !== candidates.length || pieces.length !== ids.length) {
      throw new UserError(`fixed label tokens: ${ids.length} ids and ${pieces.length} pieces for ${candidates.length} candidates`);
    }
    ids.forEach((id, j) => {
      const piece = tok.decode([id]);
      if (piece !== pieces[j]) {
        throw new UserError(`fixed label token ${id} of ${JSON.stringify(candidates[j])} decodes to ${JSON.stringify(piece)}, not ` +
          `${JSON.stringify(pieces[j])}: these ids belong to another tokenizer (study B's are Llama-2's; protocol: official reads ` +
          `them: set evaluation.labelTokens: in-context for another model)`);
      }
    });
    const ctx = tok.encode(context, special);
    if (ctx.length === 0) throw new UserError(`context ${JSON.stringify(context.slice(0, 40))} encodes to no tokens`);
    return { context: ctx.slice(-maxLength), candidates: [...ids] };
  }
  const rule = opts.labelTokens ?? DEFAULT_LABEL_TOKEN_RULE;
  if (rule === 'standalone') {
    const ids = tok.encode(context, special);
    if (ids.length === 0) throw new UserError(`context ${JSON.stringify(context.slice(0, 40))} encodes to no tokens`);
    return { context: ids.slice(-maxLength), candidates: candidates.map((c) => standaloneToken(tok, c)) };
  }
  const trailing = /\s+$/u.exec(context);
  const kept = trailing ? context.slice(0, trailing.index) : context;
  const moved = trailing ? trailing[0] : '';
  const ids = kept === '' ? [prefixToken(tok)] : tok.encode(kept, special);
  if (ids.length === 0) throw new UserError(`context ${JSON.stringify(context.slice(0, 40))} encodes to no tokens`);
  const cands = candidates.map((c) => {
    if (kept === '') return standaloneToken(tok, moved + c);
    const whole = tok.encode(kept + moved + c, special);
    const first = whole[ids.length];
    if (first === undefined) throw new UserError(`candidate ${JSON.stringify(c)} adds no token after the context ${JSON.stringify(kept.slice(-40))}`);
    return first;
  });
  return { context: ids.slice(-maxLength), candidates: cands };
}

/** encodeFirstToken for each context, an error naming the context it is about. */
export function encodeFirstTokens(
  tok: Tokenizer, contexts: readonly string[], candidates: readonly string[], opts: Parameters<typeof encodeFirstToken>[3], maxLength: number,
): FirstTokenEncoding[] {
  return contexts.map((c, i) => {
    try {
      return encodeFirstToken(tok, c, candidates, opts, maxLength);
    } catch (err) {
      if (err instanceof UserError) throw new UserError(`context ${i}: ${err.message}`);
      throw err;
    }
  });
}

function standaloneToken(tok: Tokenizer, text: string): number {
  const ids = tok.encode(text, { addSpecialTokens: false });
  if (ids.length === 0) throw new UserError(`candidate ${JSON.stringify(text)} encodes to no tokens`);
  return ids[0];
}
