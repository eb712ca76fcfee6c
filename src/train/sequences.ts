// Training examples as token sequences with the positions the loss covers.
//
// classify (study A): the model reads the context (demonstrations + prompt, encoded with the
//   tokenizer's special tokens, as firstTokenLogprobs reads it at test time); the loss is
//   cross-entropy over the whole vocabulary at the last context position, the target being the
//   first token of the label's continuation (e.g. " Yes"), tokenised on its own.
// generate (study B): the model reads context + target + EOS; the loss covers the target's tokens
//   and the EOS. The target's tokens are encode(context + target) after the context's tokens (as
//   lm-evaluation-harness splits a pair), so a merge across the boundary cannot shift them.
// Sequences longer than maxLength keep their last tokens (the target survives, the oldest
// demonstrations go first).
import { UserError } from '../errors.ts';
import type { Tokenizer } from '../types.ts';
import type { TrainingPieces } from '../tasks/demonstrations.ts';

export type Objective = 'classify' | 'generate';

export interface TrainSequence {
  exampleId: string;
  /** Model input ids. */
  ids: number[];
  /** Positions of `ids` whose next-token prediction is scored. */
  lossPositions: number[];
  /** The token expected at each loss position. */
  targets: number[];
}

export function encodeForTraining(tok: Tokenizer, pieces: readonly TrainingPieces[], objective: Objective, maxLength: number): TrainSequence[] {
  return pieces.map((p) => (objective === 'classify' ? classifySequence(tok, p, maxLength) : generateSequence(tok, p, maxLength)));
}

function classifySequence(tok: Tokenizer, p: TrainingPieces, maxLength: number): TrainSequence {
  const ids = tok.encode(p.context).slice(-maxLength);
  if (ids.length === 0) throw new UserError(`example "${p.exampleId}": the context encodes to no tokens`);
  const label = tok.encode(p.target, { addSpecialTokens: false });
  if (label.length === 0) throw new UserError(`example "${p.exampleId}": the label continuation ${JSON.stringify(p.target)} encodes to no tokens`);
  return { exampleId: p.exampleId, ids, lossPositions: [ids.length - 1], targets: [label[0]] };
}

function generateSequence(tok: Tokenizer, p: TrainingPieces, maxLength: number): TrainSequence {
  if (tok.eosTokenId === undefined) throw new UserError('the tokenizer has no EOS token (tokenizer_config.json eos_token), which generation training appends');
  const ctxLen = tok.encode(p.context).length;
  const whole = [...tok.encode(p.context + p.target), tok.eosTokenId];
  if (whole.length - ctxLen < 1) throw new UserError(`example "${p.exampleId}": no target tokens`);
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
