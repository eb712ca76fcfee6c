// Is the model a server answers for the checkpoint being evaluated? Established before any answer
// is cached, so that nothing is stored under the wrong checkpoint's identity.
//
// What a server says about itself (GET /v1/models): genstudy serve reports `genstudy_weights`, the
// weights identity, which is compared with the checkpoint's. vLLM reports no weights, only `root`,
// the path it was started on (an adapter card: `root`, the adapter's path, and `parent`, the base
// model's name; vllm/entrypoints/openai/models/serving.py show_available_models, commit 00153c8b79).
// So, in order:
// 1. `genstudy_weights` present: it must equal the checkpoint's identity;
// 2. else `root` names the checkpoint folder (the same real path here): accepted;
// 3. else, with `identity: 'probe'`, a few prompts scored by the server and by the built-in engine
//    on the local files must agree (PROBE_TOLERANCE per token): for servers whose paths differ
//    from this machine's, when the model fits here;
// 4. else refused, saying which of these to use (or one server per checkpoint: a served loader,
//    which starts the server on the checkpoint's own folder, so 2 holds).
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.ts';
import type { CheckpointRef, IdentityCheck, LanguageModel, ScoreRequest } from '../../types.ts';

export type { IdentityCheck };
import { builtinLoader } from '../builtin/loader.ts';

export interface ServedModel { id: string; root?: string | null; parent?: string | null; max_model_len?: number | null; genstudy_weights?: string }


/**
 * Largest mean difference per token between the server's and the built-in engine's log-probs that
 * still counts as the same weights. Measured here (tiny random GPT-2 of test/evaluate/tiny-model.ts,
 * seed 31, served in float32 by the vLLM profile): the same weights differ by < 1e-4 per token,
 * a checkpoint 1% of a step-size away by 0.088, 10% by 0.96, step 0 vs 100 by 8.7. How much bf16
 * serving moves a real model's log-probs was not measured here: where it exceeds this, serve in
 * float32 for the probe or start one server per checkpoint.
 */
export const PROBE_TOLERANCE = 0.05;

const PROBE_TEXTS: ScoreRequest[] = [
  { context: 'The quick brown fox', continuation: ' jumps over the lazy dog.' },
  { context: 'Question: is the sky blue? Answer:', continuation: ' Yes' },
  { context: 'the dog sees the cat', continuation: ' and the cat sees the dog .' },
  { context: '1 2 3 4', continuation: ' 5 6 7 8' },
];

/** The same file or folder (real paths compared where they exist). */
export function samePath(a: string, b: string): boolean {
  const real = (p: string): string => { try { return fs.realpathSync(p); } catch { return path.resolve(p); } };
  return real(a) === real(b);
}

function advice(what: string): string {
  return `${what}; so that no answer is stored under the wrong checkpoint, either start the server on the checkpoint's folder ` +
    '(one server per checkpoint: a study file\'s evaluation.serve command starts one per folder), or let genstudy compare a few ' +
    'prompt log-probs from the server with the built-in engine on the local files (--remote-identity probe; the model must fit here)';
}

/**
 * Throws unless the server's card `m` (for the base model when `folder` is a LoRA checkpoint's base)
 * matches `folder`; `probe` runs check 3 when asked for.
 */
export async function checkServedModel(
  server: string, m: ServedModel, folder: string, engineId: string, check: IdentityCheck, probe: () => Promise<string | undefined>,
): Promise<void> {
  if (m.genstudy_weights !== undefined) {
    if (m.genstudy_weights.replace(/\+lora$/, '') === engineId.replace(/\+lora$/, '')) return;
    throw new UserError(`the server at ${server} serves "${m.id}" with weights ${m.genstudy_weights}, but checkpoint ${folder} has ${engineId}; ` +
      'a full checkpoint needs a server started on that folder (LoRA checkpoints share one server)');
  }
  if (typeof m.root === 'string' && samePath(m.root, folder)) return;
  const said = typeof m.root === 'string' ? `was started on ${m.root}` : 'does not say what it was started on';
  if (check === 'probe') {
    const problem = await probe();
    if (problem === undefined) return;
    throw new UserError(`the server at ${server} serves "${m.id}", which ${said}, and its log-probs differ from ${folder}'s: ${problem}`);
  }
  throw new UserError(advice(
    `the server at ${server} serves "${m.id}", which ${said}, not ${folder}, and it does not report which weights it holds`));
}

/** Check 3: the server's scores of PROBE_TEXTS against the built-in engine's on the checkpoint's files; undefined when they agree. */
export async function probeAgainstBuiltin(remote: LanguageModel, cp: CheckpointRef, tolerance = PROBE_TOLERANCE): Promise<string | undefined> {
  const local = await builtinLoader()(cp);
  try {
    const [want, got] = await Promise.all([local.model.score(PROBE_TEXTS), remote.score(PROBE_TEXTS)]);
    let worst = 0;
    want.forEach((w, i) => { worst = Math.max(worst, Math.abs(w.logprob - got[i].logprob) / Math.max(1, w.tokens)); });
    return worst <= tolerance ? undefined : `a mean difference of ${worst.toFixed(4)} per token (at most ${tolerance} counts as the same weights)`;
  } finally {
    local.dispose?.();
  }
}
