// Paths shared by the engine tests: the golden models live in ../shared (absent in a user's clone).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuiltinModel, FamilyName } from '../../src/engine/index.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = path.resolve(repoRoot, '../shared');
export const fixturesDir = path.join(repoRoot, 'test/engine/fixtures');

/** The families ../shared/golden/engine holds golden models of (its README), each in a folder of its name. */
export const GOLDEN_FAMILIES = ['gpt2', 'llama'] as const satisfies readonly FamilyName[];

/** The golden model folder of a family, or undefined when ../shared is absent. */
export function goldenDir(family: (typeof GOLDEN_FAMILIES)[number]): string | undefined {
  const d = path.join(sharedDir, 'golden/engine', family);
  return fs.existsSync(path.join(d, 'config.json')) ? d : undefined;
}

export const NO_SHARED = 'needs ../shared/golden/engine (the shared golden models), which is absent';

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

/** A fresh temporary folder holding copies of `from`'s files. */
export function copyToTemp(from: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-engine-'));
  for (const f of fs.readdirSync(from)) {
    fs.copyFileSync(path.join(from, f), path.join(dir, f));
    fs.chmodSync(path.join(dir, f), 0o644);
  }
  return dir;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** Greedy decoding by full forward passes over the growing sequence, no cache, no batching. */
export async function argmaxDecode(m: BuiltinModel, prompt: string, n: number): Promise<number[]> {
  const ids = m.tokenizer.encode(prompt);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const [logits] = await m.logits([[...ids, ...out]]);
    const v = m.arch.vocabSize;
    const next = argmax(logits.subarray(logits.length - v));
    if (next === m.tokenizer.eosTokenId) break;
    out.push(next);
  }
  return out;
}

