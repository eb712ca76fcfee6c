// A synthetic suite and tiny randomly initialised models in temporary folders, for the trainer tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../src/engine/index.ts';
import type { BuiltinModel, InitFamily } from '../../src/engine/index.ts';
import { generateSuite, writeSuite, type Suite } from '../../src/synth/index.ts';
import { initModel, tinyConfig } from '../../src/train/index.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** A temporary folder, removed when the test process exits. */
export function tempDir(prefix = 'genstudy-train-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

let cached: { suite: Suite; dir: string } | undefined;

/** A small suite written to a temporary folder (its tokenizer files are what initModel copies). */
export async function smallSuite(): Promise<{ suite: Suite; dir: string }> {
  if (!cached) {
    const suite = generateSuite({ seed: 7, trainSize: 160, testSize: 20 });
    const dir = tempDir('genstudy-suite-');
    await writeSuite(dir, suite);
    cached = { suite, dir };
  }
  return cached;
}

/** A tiny model of a family that offers one (INIT_FAMILIES): 4 heads, 2 key-value heads where the family has them. */
export async function tinyModelDir(kind: InitFamily, o: { hidden?: number; layers?: number; seed?: number; dropout?: number } = {}): Promise<string> {
  const { suite, dir } = await smallSuite();
  const cfg = tinyConfig(kind, suite.vocabulary.length, { hidden: o.hidden ?? 32, layers: o.layers ?? 2, heads: 4, kvHeads: 2, dropout: o.dropout });
  return initModel(cfg, dir, o.seed ?? 1, tempDir(`genstudy-${kind}-`));
}

export async function logitsOf(m: BuiltinModel, rows: number[][]): Promise<Float32Array[]> {
  return m.logits(rows);
}

export async function loaded(dir: string): Promise<BuiltinModel> {
  return loadModel(dir);
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
