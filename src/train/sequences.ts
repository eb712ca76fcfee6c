// Training examples as token sequences with the positions the loss covers.
//
// label-token (study A's objective): the model reads the context (demonstrations + prompt, encoded with
//   the tokenizer's special tokens) exactly as firstTokenLogprobs reads it at test time; the loss is
//   cross-entropy over the whole vocabulary at the last context position, the target being the
//   label's first token chosen by the same rule as at test time (encodeFirstToken: in context by
//   default, " Yes" after "No?"; or the label tokenised alone).
// supervised (study B's objective, for its generation and classification tasks alike,
//   train_ptune.py: targets = output + eos_token): the model reads context + target + EOS; the loss
//   covers the target's tokens and the EOS. The target's tokens are encode(context + target) after the context's tokens (as
//   lm-evaluation-harness splits a pair), so a merge across the boundary cannot shift them.
// Sequences longer than maxLength keep their last tokens (keep-target: the target survives, the
// oldest demonstrations go first), or, to replay study B's train.py (keep-first: tokenizer(...,
// max_length=1024, truncation=True), right truncation), their first tokens: the target, or all of
// it, may be cut. The truncations are the protocol setting's (tasks/protocol.ts), under its names.
import { UserError } from '../errors.ts';
import { DEFAULT_LABEL_TOKEN_RULE, type Tokenizer } from '../types.ts';
import type { Objective } from './option-table.ts';
import type { Truncation } from '../tasks/protocol.ts';
import type { TrainingPieces } from '../tasks/demonstrations.ts';
import { encodeFirstToken, type LabelTokenRule } from '../engine/index.ts';


export interface TrainSequence {
  exampleId: string;
  /** Model input ids. */
  ids: number[];
  /** Positions of `ids` whose next-token prediction is scored. */
  lossPositions: number[];
  /** The token expected at each loss position. */
  targets: number[];
  /**
   * Study A's replay (padTo): ids holds this many real tokens, then right padding that the model
   * reads as padding (masked keys, the family's pad positions) with the loss at the last position.
   */
  realLength?: number;
  /** Target tokens (EOS included) that keep-first truncation cut off the end; absent when none. */
  cutTargets?: number;
}

export function encodeForTraining(
  tok: Tokenizer, pieces: readonly TrainingPieces[], objective: Objective, maxLength: number,
  labelTokens: LabelTokenRule = DEFAULT_LABEL_TOKEN_RULE, padTo?: number,
  truncation: Truncation = 'keep-target',
): TrainSequence[] {
  if (padTo !== undefined && objective !== 'label-token') {
    throw new UserError('padTo (study A\'s reading position) applies to the label-token objective only');
  }
  return pieces.map((p) => (objective === 'label-token'
    ? labelTokenSequence(tok, p, maxLength, labelTokens, padTo)
    : supervisedSequence(tok, p, maxLength, truncation)));
}

/**
 * What keep-first truncation did to a run's targets, for the log: how many examples keep no
 * target token, how many keep part of it, and the share of target tokens that survive; undefined
 * when no target token was cut.
 */
export function truncationNote(seqs: readonly TrainSequence[], maxLength: number): string | undefined {
  const cut = seqs.filter((s) => (s.cutTargets ?? 0) > 0);
  if (cut.length === 0) return undefined;
  const lost = cut.filter((s) => s.targets.length === 0).length;
  const kept = seqs.reduce((n, s) => n + s.targets.length, 0);
  const all = kept + cut.reduce((n, s) => n + s.cutTargets!, 0);
  return `training truncated to the first ${maxLength} tokens: ${lost} of ${seqs.length} examples keep no target token (they add no loss) and ` +
    `${cut.length - lost} more lose part of it; ${(100 * kept / all).toFixed(1)}% of target tokens survive`;
}

function labelTokenSequence(tok: Tokenizer, p: TrainingPieces, maxLength: number, labelTokens: LabelTokenRule, padTo?: number): TrainSequence {
  let enc;
  try {
    enc = encodeFirstToken(tok, p.context, [p.target], { labelTokens }, maxLength);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`example "${p.exampleId}": ${err.message}`);
    throw err;
  }
  if (padTo !== undefined) {
    // As at test time (engine/builtin/first-token.ts, paddedReading): the first padTo tokens, right-padded.
    const padId = (tok as { padTokenId?: number }).padTokenId ?? tok.eosTokenId;
    if (padId === undefined) throw new UserError('padTo: the tokenizer has neither a pad nor an EOS token to pad with');
    const real = tok.encode(p.context).slice(0, padTo);
    const ids = [...real, ...new Array<number>(padTo - real.length).fill(padId)];
    return { exampleId: p.exampleId, ids, lossPositions: [padTo - 1], targets: [enc.candidates[0]], realLength: real.length };
  }
  return { exampleId: p.exampleId, ids: enc.context, lossPositions: [enc.context.length - 1], targets: [enc.candidates[0]] };
}

function supervisedSequence(tok: Tokenizer, p: TrainingPieces, maxLength: number, truncation: Truncation): TrainSequence {
  if (tok.eosTokenId === undefined) {
    throw new UserError('the tokenizer has no EOS token (tokenizer_config.json eos_token), which generation training appends');
  }
  const ctxLen = tok.encode(p.context).length;
  const whole = [...tok.encode(p.context + p.target), tok.eosTokenId];
  if (whole.length - ctxLen < 1) throw new UserError(`example "${p.exampleId}": no target tokens`);
  if (truncation === 'keep-first' && whole.length > maxLength) {
    // train.py: input_ids = the first maxLength tokens of prompt + output + EOS; the labels of the
    // prompt's (also truncated) tokens are ignored. The input's last token predicts nothing.
    const kept = whole.slice(0, maxLength);
    const lossPositions: number[] = [];
    const targets: number[] = [];
    for (let j = ctxLen; j < kept.length; j++) {
      lossPositions.push(j - 1);
      targets.push(kept[j]);
    }
    return { exampleId: p.exampleId, ids: kept.slice(0, -1), lossPositions, targets, cutTargets: whole.length - Math.max(ctxLen, kept.length) };
  }
  // Input is whole[:-1]; input position i predicts whole[i + 1].
  const drop = Math.max(0, whole.length - 1 - maxLength);
  const ids = whole.slice(drop, -1);
  const lossPositions: number[] = [];
  const targets: number[] = [];
  for (let j = Math.max(ctxLen, drop + 1); j < whole.length; j++) {
    lossPositions.push(j - 1 - drop);
    targets.push(whole[j]);
  }
  return { exampleId: p.exampleId, ids, lossPositions, targets };
}
