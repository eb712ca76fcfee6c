// Shared by the report tests: temp folders and real results stores (SQLite through ResultStore)
// filled with simulated study-A runs (scores with a known correlation structure, a training log)
// and study-B-style runs (base / ft / fticl on a few tasks with tagged test sets).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ResultStore, type StoredScore } from '../../src/store/result-store.ts';
import { simulateScores } from '../support/simulated-scores.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');

export function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const STUDY_A = { runs: 3, steps: 30, seed: 11, control: 'in-domain' };

/**
 * Study A: simulated runs, each with versions, a seed, checkpoint hashes and a training log.
 * `stuck` makes one OOD set of the first run sit at 0.5 but for two checkpoints (as the demo's
 * overlap sets do): its pairs in that run are unstable, left out of the pooling.
 */
export function writeStudyA(store: ResultStore, opts: Partial<typeof STUDY_A> & { stuck?: string } = {}): void {
  const o = { ...STUDY_A, ...opts };
  const rows = simulateScores({ seed: o.seed, runs: o.runs, steps: o.steps, noise: 0.005 });
  const runs = [...new Set(rows.map((r) => r.run))];
  if (o.stuck !== undefined) {
    for (const r of rows) if (r.run === runs[0] && r.test_set === o.stuck) r.value = r.step === 1000 ? 0.53 : r.step === 2000 ? 0.52 : 0.5;
  }
  for (const [i, run] of runs.entries()) {
    store.upsertRun({
      id: run, model: `sim-${run}`, trainingSet: 'synthetic-nli', method: 'lora', seed: 40 + i, studyFile: 'examples/study-a.yaml',
      versions: { genstudy: '0.1.0', 'tfjs-core': '4.22.0' }, attributes: { control_test_set: o.control, lr: 1e-5 },
    });
    for (let s = 0; s < o.steps; s++) store.upsertCheckpoint({ run, step: s * 100, contentHash: `sha256:${run}-${s}` });
    store.writeTrainingLog(Array.from({ length: o.steps },
      (_, s) => ({ run, step: s * 100, loss: 0.7 * Math.exp(-s / 8) + 0.25 + 0.01 * Math.sin(s + i), learningRate: 1e-5 })));
  }
  // n consistent with the simulated noise (sd 0.005 is the binomial sd of an accuracy near 0.5 at n = 10000)
  for (const id of new Set(rows.map((r) => r.test_set))) store.upsertTestSet({ id, contentHash: `sha256:${id}-content`, n: 10000 });
  store.writeScores(rows.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, n: 10000 })));
}

/** A results store in a new temporary folder holding study A's simulated runs; returns its path. */
export function studyAStore(t: { after(fn: () => void): void }, opts: Partial<typeof STUDY_A> = {}): string {
  const storePath = join(tempDir(t), 'results.sqlite');
  const store = ResultStore.open(storePath);
  writeStudyA(store, opts);
  store.close();
  return storePath;
}

/** Study B's design in small: three tasks, their test sets, and what each score is. */
export const STUDY_B_TASKS = [
  { task: 'sentiment', metric: 'accuracy',
    sets: [{ id: 'amazon', domain: 'in-domain' }, { id: 'sst2', domain: 'cross-domain' }, { id: 'yelp', domain: 'cross-domain' }] },
  { task: 'nli', metric: 'accuracy', sets: [{ id: 'mnli', domain: 'in-domain' }, { id: 'rte', domain: 'cross-domain' }] },
  { task: 'summarisation', metric: 'rougeL', sets: [{ id: 'xsum', domain: 'in-domain' }, { id: 'cnn', domain: 'cross-domain' }] },
] as const;

export interface StudyBTask { task: string; metric: string; sets: readonly { id: string; domain: string }[] }

/**
 * Study B with many test sets (18: three tasks of six, two of them accuracy, one ROUGE-L), long
 * names that break nowhere, as a real suite's are: wider than a page as one row of columns.
 */
export const WIDE_STUDY_B_TASKS: StudyBTask[] = [
  { task: 'sentiment', metric: 'accuracy', n: 6 }, { task: 'nli', metric: 'accuracy', n: 6 }, { task: 'summarisation', metric: 'rougeL', n: 6 },
].map(({ task, metric, n }) => ({
  task, metric,
  sets: Array.from({ length: n }, (_, i) => ({ id: `${task}_heldout_collection_${i}`, domain: i === 0 ? 'in-domain' : 'cross-domain' })),
}));

/** A known score: base 0.5 (0.2 for ROUGE); fine-tuning adds by role; FTICL adds 0.01 more. */
export function studyBScore(method: 'base' | 'ft' | 'fticl', trainingTask: string | null, set: { task: string; domain: string; metric: string },
  seed: number): number {
  const base = set.metric === 'rougeL' ? 0.2 : 0.5;
  if (method === 'base') return base;
  const role = set.task !== trainingTask ? 'cross-task' : set.domain;
  const gain = role === 'in-domain' ? 0.3 : role === 'cross-domain' ? 0.1 : -0.05;
  return base + gain + (method === 'fticl' ? 0.01 : 0) + 0.002 * seed;
}

export function writeStudyB(store: ResultStore, opts: { model?: string; seeds?: number[]; tasks?: readonly StudyBTask[] } = {}): void {
  const model = opts.model ?? 'llama-tiny';
  const seeds = opts.seeds ?? [0, 1];
  const tasks = opts.tasks ?? STUDY_B_TASKS;
  for (const t of tasks) {
    for (const s of t.sets)
      store.upsertTestSet({ id: s.id, contentHash: `sha256:${s.id}`, n: 250, spec: { task: t.task, domain: s.domain, metric: t.metric } });
  }
  const allSets = tasks.flatMap((t) => t.sets.map((s) => ({ ...s, task: t.task, metric: t.metric })));
  const scores: StoredScore[] = [];
  store.upsertRun({ id: `${model}-base`, model, method: 'base', seed: 0, versions: { genstudy: '0.1.0' }, attributes: {} });
  for (const s of allSets)
    scores.push({ run: `${model}-base`, step: 0, testSet: s.id, metric: s.metric, value: studyBScore('base', null, s, 0), n: 250 });
  for (const method of ['ft', 'fticl'] as const) {
    for (const t of tasks) {
      for (const seed of seeds) {
        const run = `${model}-${method}-${t.task}-s${seed}`;
        store.upsertRun({ id: run, model, method, seed, trainingSet: t.sets[0].id, versions: { genstudy: '0.1.0' },
          attributes: { training_task: t.task, train_size: 2000 } });
        // An early checkpoint with other values: the report must use the last one.
        for (const s of allSets) {
          scores.push({ run, step: 10, testSet: s.id, metric: s.metric, value: 0.01, n: 250 });
          scores.push({ run, step: 250, testSet: s.id, metric: s.metric, value: studyBScore(method, t.task, s, seed), n: 250 });
        }
      }
    }
  }
  store.writeScores(scores);
}
