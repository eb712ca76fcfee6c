// The evaluation cache's key: a content hash of everything that decides an engine's answer for one
// example: the model (weights identity plus the files that shape its input: config and tokenizer),
// the test set's content hash, the example, the scoring mode and the exact request (the rendered
// prompt with its demonstrations, the candidates or continuations, the generation budget). Two
// commands that ask the same question of the same weights share answers, whatever the run is
// called; change any of those and the key changes, so a stale answer is never reused.
import { createHash } from 'node:crypto';
import type { LabelTokens } from '../tasks/protocol.ts';

/** Bump when the meaning of a cached answer changes (an engine fix that changes numbers). */
export const CACHE_FORMAT = 'genstudy-evaluate-cache/1';

export type EngineMode = 'first-token' | 'full-word' | 'generate';

export type RequestPayload =
  | { mode: 'first-token'; context: string; candidates: string[]; labelTokens: LabelTokens; addSpecialTokens: boolean; padTo?: number;
    fixedTokens?: { ids: number[]; pieces: string[] } }
  | { mode: 'full-word'; requests: { context: string; continuation: string }[] }
  | { mode: 'generate'; prompt: string; maxNewTokens: number; stop: string[]; addSpecialTokens: boolean };

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The model-independent part of a key, computed once per (test set, variant, example). */
export function requestDigest(testSetHash: string, exampleId: string, payload: RequestPayload): string {
  return sha256(JSON.stringify([CACHE_FORMAT, testSetHash, exampleId, payload]));
}

/** The cache key of one request digest asked of one model. */
export function cacheKey(modelKey: string, digest: string): string {
  return sha256(`${modelKey}\u0000${digest}`);
}
