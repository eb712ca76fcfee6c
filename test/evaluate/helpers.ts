// Shared pieces of the evaluate tests: tiny checkpoints over the synthetic suite, a counting
// wrapper around the real engine, and a dump of a results store for comparing two stores.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { builtinLoader, type ModelLoader } from '../../src/engine/index.ts';
import { suiteVocabulary } from '../../src/synth/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import type { LanguageModel } from '../../src/types.ts';
import { writeTinyRun } from './tiny-model.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = path.resolve(repoRoot, '../shared');

/** The in-domain set and four OOD sets of the synthetic suite. */
export const SUITE_SETS = ['in-domain', 'overlap-consistent', 'overlap-broken', 'negation-consistent', 'negation-broken'];
export const SUITE_ARG = `synthetic:${SUITE_SETS.join(',')}`;
export const STEPS = [0, 100, 200, 300, 400];

export function tempDir(prefix = 'genstudy-evaluate-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A folder of step-N checkpoints of a tiny GPT-2 over the suite's vocabulary. */
export function tinyRun(steps: readonly number[] = STEPS, seed = 7, name = 'tiny-run'): string {
  const dir = path.join(tempDir(), name);
  writeTinyRun(dir, { vocabulary: suiteVocabulary(syntheticTask()), seed }, steps);
  return dir;
}

export interface Counts { loads: number; calls: number; requests: number }

/** The built-in engine, wrapped to count loads, calls and requests (a real model, not a mock). */
export function countingLoader(): { loader: ModelLoader; counts: Counts } {
  const counts: Counts = { loads: 0, calls: 0, requests: 0 };
  const inner = builtinLoader();
  const loader: ModelLoader = async (cp) => {
    counts.loads++;
    const handle = await inner(cp);
    const m = handle.model;
    const counted: LanguageModel = {
      id: m.id,
      tokenizer: m.tokenizer,
      score: (reqs) => { counts.calls++; counts.requests += reqs.length; return m.score(reqs); },
      firstTokenLogprobs: (contexts, candidates) => {
        counts.calls++; counts.requests += contexts.length; return m.firstTokenLogprobs(contexts, candidates); },
      generate: (reqs) => { counts.calls++; counts.requests += reqs.length; return m.generate(reqs); },
    };
    return { model: counted, dispose: handle.dispose };
  };
  return { loader, counts };
}

/** Every row a store holds that an evaluation writes, timestamps left out, in a fixed order. */
export function dumpStore(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const q = (sql: string) => db.prepare(sql).all();
    return {
      runs: q(`SELECT id, model, method FROM runs ORDER BY id`),
      checkpoints: q(`SELECT run_id, step, path, content_hash FROM checkpoints ORDER BY run_id, step`),
      test_sets: q(`SELECT id, content_hash, n, spec FROM test_sets ORDER BY id`),
      scores: q('SELECT c.run_id, c.step, s.test_set_id, s.prompt_variant, s.metric, s.value, s.n ' +
        'FROM scores s JOIN checkpoints c ON c.id = s.checkpoint_id ORDER BY 1, 2, 3, 4, 5'),
      predictions: q('SELECT c.run_id, c.step, p.test_set_id, p.prompt_variant, p.example_id, p.prediction, p.gold, p.detail ' +
        'FROM predictions p JOIN checkpoints c ON c.id = p.checkpoint_id ORDER BY 1, 2, 3, 4, 5'),
      cache: q(`SELECT key, model_id, test_set_id, test_set_hash, example_id, mode, answer FROM evaluation_cache ORDER BY key`),
      superseded_scores: q(
        `SELECT run_id, step, test_set_id, test_set_hash, prompt_variant, metric, value, n, reason FROM superseded_scores ORDER BY 1, 2, 3, 5, 6`),
      superseded_predictions: q('SELECT run_id, step, test_set_id, test_set_hash, prompt_variant, example_id, prediction, gold, detail ' +
        'FROM superseded_predictions ORDER BY 1, 2, 3, 5, 6'),
    };
  } finally {
    db.close();
  }
}

export function countRows(file: string, table: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

