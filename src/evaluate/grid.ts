// The evaluation grid: checkpoints x test sets x prompt variants -> one score row per metric and
// one prediction row per example in the results store, with every engine answer cached per example.
//
// Order of work, and why:
// 1. Plan every cell and identify every checkpoint (hash its weights) before writing anything, so
//    bad input fails with nothing stored, and the cache says up front how much model work is left.
// 2. Record the run, the test sets and the checkpoints. A test set whose content changed since the
//    store last saw it (same id, other hash), or a checkpoint whose weights changed (same run and
//    step), has its old scores and predictions moved to the superseded tables first: re-evaluated,
//    said so, nothing dropped.
// 3. Per checkpoint (step order): a cell whose stored rows carry its fingerprint (the model key,
//    every request's digest, the task, the golds and the metric options: plan.ts cellFingerprint) is
//    neither looked up nor written again, and a checkpoint made only of such cells is skipped whole,
//    so a resumed study costs no per-example work; any other cell is computed or rewritten from the
//    cache, and its fingerprint recorded with its rows. A model is loaded only when some answer is
//    missing. The missing requests of all cells that can share an engine call (same mode; same
//    candidates for first-token) go to the engine together, longest first, in chunks fixed by the
//    full request list (stored cells' requests included); each chunk's answers are stored in one
//    transaction. Because chunks are fixed by the plan, a run killed half-way and run again sends
//    the engine the same batches as an uninterrupted run, so the final store is the same. A cell's
//    predictions and scores are written in one transaction as soon as all its answers are in.
// Different checkpoints are different models, so their requests cannot share a forward pass; the
// engine is kept busy by passing each checkpoint's whole workload in large calls.
import { ResultStore, type PredictionRecord, type StoredScore } from '../store/result-store.ts';
import { builtinLoader, identifyCheckpoint, type ModelIdentity } from '../engine/index.ts';
import { UserError } from '../errors.ts';
import { LOGPROB_TOLERANCE, type CheckpointRef, type LanguageModel, type ModelHandle, type ModelLoader, type ScoreResult } from '../types.ts';
import { RougeScorer } from '../metrics/index.ts';
import { cacheKey, type RequestPayload } from './cache-key.ts';
import { cellOutcome, type MetricOptions } from './cell-metrics.ts';
import type { CacheEntry } from '../store/evaluation-tables.ts';
import { checkRunFolder } from './run-folder.ts';
import { cellFingerprint, engineGroup, planCells, requestLength, type Cell, type PlanOptions } from './plan.ts';
import { NO_PROGRESS, type ProgressSink } from './progress.ts';
import type { EvalTestSet } from './test-sets.ts';
import type { PromptVariant } from './variants.ts';

export interface GridOptions extends PlanOptions {
  storePath: string;
  /** An open handle on that store to use (a study keeps one for its whole run); else one is opened and closed here. */
  store?: ResultStore;
  run: string;
  /** Recorded as the run's model when the run is new. */
  runModel?: string;
  /**
   * The folder the checkpoints come from (runFolderOf: evaluate's --model, watch's folder),
   * recorded with the run; under a run recorded from another folder they are refused, unless
   * `runNamed`.
   */
  runFolder?: string;
  /** The caller chose the run's name (--run): checkpoints from another folder may join the run, and the progress says so. */
  runNamed?: boolean;
  checkpoints: CheckpointRef[];
  testSets: EvalTestSet[];
  /** The prompt variants of every test set, or a function giving each set its own (study B's every-k grid). */
  variants: PromptVariant[] | ((set: EvalTestSet) => PromptVariant[]);
  positiveLabel?: string;
  rougeStemmer?: boolean;
  /** Examples per engine call (the engine splits them into forward batches by tokens). Default 512. */
  batchExamples?: number;
  loader?: ModelLoader;
  identify?: (checkpoint: CheckpointRef) => ModelIdentity;
  progress?: ProgressSink;
}

export interface GridSummary {
  run: string;
  /** The scores this evaluation wrote, in store order. */
  scores: StoredScore[];
  examples: number;
  /** Examples answered by the model in this call, and from the cache. */
  computed: number;
  cached: number;
  modelsLoaded: number;
  engineCalls: number;
  seconds: number;
}

interface Item { cell: Cell; example: number; key: string; group: string; length: number }

const DEFAULT_BATCH_EXAMPLES = 512;

function describeSuperseded(what: string, counts: { scores: number; predictions: number; runs: string[] }): string {
  if (counts.scores + counts.predictions === 0) return `${what}; nothing was stored for it yet`;
  return `${what}; its earlier ${counts.scores} scores and ${counts.predictions} predictions (runs ${counts.runs.join(', ')}) ` +
    'were moved to superseded_scores / superseded_predictions';
}

async function askEngine(model: LanguageModel, items: Item[]): Promise<unknown[]> {
  const answers = await askEngineUnchecked(model, items);
  if (answers.length !== items.length || answers.some((a) => a === undefined || a === null)) {
    throw new Error(`the engine answered ${answers.filter((a) => a !== undefined && a !== null).length} of ${items.length} requests`);
  }
  answers.forEach((a, i) => checkAnswer(model, items[i].cell.payloads[items[i].example], a));
  return answers;
}

const isLogprob = (v: unknown, tokens = 1): boolean => typeof v === 'number' && !Number.isNaN(v) && v <= LOGPROB_TOLERANCE * Math.max(1, tokens);

/**
 * An answer is checked before the cache keeps it, whatever engine gave it: a cached answer is
 * reused by every later evaluation, so a wrong one must not get in (the remote engine checks each
 * server value too; this is the contract of LanguageModel, checked once for all engines).
 */
function checkAnswer(model: LanguageModel, payload: RequestPayload, answer: unknown): void {
  const bad = (what: string): never => {
    throw new UserError(`the model ${model.id} answered ${JSON.stringify(answer)?.slice(0, 120)} ${what}; nothing of this batch was cached`);
  };
  if (payload.mode === 'first-token') {
    if (!Array.isArray(answer) || answer.length !== payload.candidates.length) bad(`for ${payload.candidates.length} candidates`);
    if (!(answer as unknown[]).every((v) => isLogprob(v))) bad('where log-probabilities (numbers <= 0) were expected');
  } else if (payload.mode === 'full-word') {
    if (!Array.isArray(answer) || answer.length !== payload.requests.length) bad(`for ${payload.requests.length} continuations`);
    for (const r of answer as ScoreResult[]) {
      if (!(Number.isInteger(r?.tokens) && r.tokens >= 0 && isLogprob(r.logprob, r.tokens) && typeof r.isGreedy === 'boolean')) {
        bad('where {logprob <= 0, tokens, isGreedy} was expected');
      }
    }
  } else if (typeof answer !== 'string') {
    bad('where generated text was expected');
  }
}

async function askEngineUnchecked(model: LanguageModel, items: Item[]): Promise<unknown[]> {
  const payloads = items.map((it) => it.cell.payloads[it.example]);
  const first = payloads[0];
  if (first.mode === 'first-token') {
    return model.firstTokenLogprobs(payloads.map((p) => (p as Extract<RequestPayload, { mode: 'first-token' }>).context), first.candidates,
      {
        ...(first.labelTokens === 'llama2-ids' ? { fixedTokens: first.fixedTokens } : { labelTokens: first.labelTokens }),
        addSpecialTokens: first.addSpecialTokens, ...(first.padTo === undefined ? {} : { padTo: first.padTo }),
      });
  }
  if (first.mode === 'generate') {
    return model.generate(payloads.map((p) => {
      const g = p as Extract<RequestPayload, { mode: 'generate' }>;
      const req = { prompt: g.prompt, maxNewTokens: g.maxNewTokens, addSpecialTokens: g.addSpecialTokens };
      return g.stop.length > 0 ? { ...req, stop: g.stop } : req;
    }));
  }
  const flat = payloads.flatMap((p) => (p as Extract<RequestPayload, { mode: 'full-word' }>).requests);
  const results = await model.score(flat);
  if (results.length !== flat.length) throw new Error(`the engine scored ${results.length} of ${flat.length} continuations`);
  const out: ScoreResult[][] = [];
  let at = 0;
  for (const p of payloads) {
    const n = (p as Extract<RequestPayload, { mode: 'full-word' }>).requests.length;
    out.push(results.slice(at, at + n).map((r) => ({ logprob: r.logprob, tokens: r.tokens, isGreedy: r.isGreedy })));
    at += n;
  }
  return out;
}

/** Fixed chunks of the full request list: grouped by engine call kind, longest first, then plan order. */
function chunksOf(items: Item[], size: number): Item[][] {
  const sorted = [...items].sort((a, b) =>
    a.group < b.group ? -1 : a.group > b.group ? 1 : b.length - a.length || a.cell.index - b.cell.index || a.example - b.example);
  const chunks: Item[][] = [];
  let current: Item[] = [];
  for (const it of sorted) {
    if (current.length > 0 && (current.length >= size || current[0].group !== it.group)) {
      chunks.push(current);
      current = [];
    }
    current.push(it);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export async function evaluateGrid(opts: GridOptions): Promise<GridSummary> {
  const t0 = Date.now();
  const progress = opts.progress ?? NO_PROGRESS;
  const batchExamples = opts.batchExamples ?? DEFAULT_BATCH_EXAMPLES;
  if (!Number.isInteger(batchExamples) || batchExamples < 1) throw new UserError(`batch size ${batchExamples}: expected a positive whole number`);
  if (opts.checkpoints.length === 0) throw new UserError('no checkpoint to evaluate');
  const steps = new Set<number>();
  for (const cp of opts.checkpoints) {
    if (steps.has(cp.step)) throw new UserError(`two checkpoints for step ${cp.step} of run "${opts.run}"`);
    steps.add(cp.step);
  }

  // 1. Plan and identify: all failures of the input happen here; checkpoints of another folder under
  //    this run first of all, before any weights are hashed.
  const joining = opts.runFolder === undefined ? undefined
    : checkRunFolder(opts.store ?? opts.storePath, opts.run, opts.runFolder, opts.runNamed === true);
  const cells = await planCells(opts.testSets, opts.variants, opts);
  const identify = opts.identify ?? identifyCheckpoint;
  const identities = opts.checkpoints.map((cp) => identify(cp));
  // Every checkpoint must be loadable (config, model type, sizes, weight headers) before the run,
  // test sets and checkpoints are recorded: a model that cannot load leaves nothing behind.
  const loader = opts.loader ?? builtinLoader();
  for (const cp of opts.checkpoints) loader.check?.(cp);
  const metricOptions: MetricOptions = { positiveLabel: opts.positiveLabel, rouge: new RougeScorer({ stemmer: opts.rougeStemmer === true }),
    rougeStemmer: opts.rougeStemmer === true };
  for (const cell of cells) if (cell.task.kind === 'classify' && opts.positiveLabel !== undefined) cellOutcomeCheck(cell, metricOptions);

  const store = opts.store ?? ResultStore.open(opts.storePath);
  const tables = store.evaluation;
  let loaded = 0;
  let engineCalls = 0;
  let computed = 0;
  let cachedCount = 0;
  try {
    // 2. Supersede what changed (each move one transaction of the evaluation tables), then record
    //    the run, the test sets and the checkpoints in one transaction.
    if (joining !== undefined) progress.note(joining);
    const storedSets = new Map(opts.testSets.map((set) => [set.id, store.testSet(set.id)]));
    for (const set of opts.testSets) {
      const stored = storedSets.get(set.id);
      if (stored?.contentHash && stored.contentHash !== set.contentHash) {
        const counts = tables.supersedeTestSet(set.id, stored.contentHash, set.contentHash, set.examples.length,
          `test set "${set.id}" content changed: ${stored.contentHash} -> ${set.contentHash}`);
        progress.note(describeSuperseded(
          `test set "${set.id}" changed since it was stored (content hash ${stored.contentHash.slice(0, 12)}…, n=${stored.n} -> ` +
            `${set.contentHash.slice(0, 12)}…, n=${set.examples.length}); re-evaluating it`, counts));
      }
    }
    const storedCheckpoints = new Map(store.checkpoints(opts.run).map((c) => [c.step, c]));
    opts.checkpoints.forEach((cp, i) => {
      const before = storedCheckpoints.get(cp.step);
      if (before?.contentHash && before.contentHash !== identities[i].weights) {
        const counts = tables.supersedeCheckpoint(opts.run, cp.step, identities[i].weights,
          `checkpoint weights changed: ${before.contentHash} -> ${identities[i].weights} (${cp.dir})`);
        progress.note(describeSuperseded(
          `run "${opts.run}" step ${cp.step}: the weights in ${cp.dir} differ from the ones evaluated before; re-evaluating`, counts));
      }
    });
    store.transaction(() => {
      if (!store.runs().some((r) => r.id === opts.run)) {
        store.upsertRun({ id: opts.run, model: opts.runModel ?? null, attributes: { createdBy: 'genstudy evaluate' } });
      }
      if (opts.runFolder !== undefined) store.recordCheckpointFolder(opts.run, opts.runFolder);
      for (const set of opts.testSets) {
        const stored = storedSets.get(set.id);
        const setCells = cells.filter((c) => c.set === set);
        // Variants evaluated earlier on the same content stay described next to the new ones.
        const earlier = stored?.contentHash === set.contentHash ? (stored.spec?.variants as Record<string, unknown> | undefined) ?? {} : {};
        store.upsertTestSet({
          id: set.id, contentHash: set.contentHash, n: set.examples.length,
          spec: {
            ...set.spec,
            variants: Object.fromEntries([...Object.entries(earlier), ...setCells.map((c) => [c.variant.name, {
              task: c.task, prompt: c.variant.prompt, shots: c.variant.shots, demonstrations: c.demonstrations ?? null,
            }] as const)]),
          },
        });
      }
      opts.checkpoints.forEach((cp, i) => store.upsertCheckpoint({ run: opts.run, step: cp.step, path: cp.dir, contentHash: identities[i].weights }));
    });

    // Cells already stored from the same inputs (the same fingerprint: model key, requests, task,
    // golds, metric options) are not computed or written again; a checkpoint whose every cell is
    // stored so is skipped without building one cache key (one query for the whole run).
    const metricKey = { positiveLabel: opts.positiveLabel ?? null, rougeStemmer: opts.rougeStemmer === true, bootstrapSeed: 0 };
    const storedSources = tables.cellSources(opts.run);
    const storedCells = identities.map((identity, i): Set<Cell> => {
      const stored = storedSources.get(opts.checkpoints[i].step);
      if (!stored) return new Set();
      return new Set(cells.filter((c) => stored.get(`${c.set.id}\u0000${c.variant.name}`) === cellFingerprint(c, identity.key, metricKey)));
    });

    // Which answers the cache already holds, for every checkpoint, so progress knows the model
    // work left. Only counts are kept; a checkpoint's items and answers are built when its turn comes.
    const itemsOf = (identity: ModelIdentity): Item[] => {
      const items: Item[] = [];
      for (const cell of cells) {
        cell.digests.forEach((d, e) => items.push({
          cell, example: e, key: cacheKey(identity.key, d), group: engineGroup(cell.payloads[e]), length: requestLength(cell.payloads[e]),
        }));
      }
      return items;
    };
    const totals = new Map(opts.testSets.map((set) => [set.id, { id: set.id, total: 0, toCompute: 0 }]));
    let examples = 0;
    for (const [i, identity] of identities.entries()) {
      if (storedCells[i].size === cells.length) {
        for (const cell of cells) totals.get(cell.set.id)!.total += cell.examples.length;
        examples += cells.reduce((n, c) => n + c.examples.length, 0);
        continue;
      }
      const items = itemsOf(identity);
      const have = tables.existing(items.map((it) => it.key));
      for (const it of items) {
        const t = totals.get(it.cell.set.id)!;
        t.total++;
        if (!have.has(it.key)) t.toCompute++;
      }
      examples += items.length;
    }
    progress.start({ sets: [...totals.values()] });

    // 3. Per checkpoint: answers from the cache, the rest from the engine; cells written when complete.
    for (const [i, cp] of opts.checkpoints.entries()) {
      const identity = identities[i];
      const stored = storedCells[i];
      if (stored.size === cells.length) {
        for (const cell of cells) progress.advance(cell.set.id, cell.examples.length, false);
        cachedCount += cells.reduce((n, c) => n + c.examples.length, 0);
        continue;
      }
      const items = itemsOf(identity);
      const answers = tables.lookup(items.map((it) => it.key));
      const missingPerCell = new Map<Cell, number>(cells.map((c) => [c, 0]));
      for (const it of items) if (!answers.has(it.key)) missingPerCell.set(it.cell, missingPerCell.get(it.cell)! + 1);
      const partial = new Set(cells.filter((c) => missingPerCell.get(c)! > 0));
      const cachedAtStart = new Set(answers.keys());
      const writeCell = (cell: Cell): void => {
        const keys = cell.digests.map((d) => cacheKey(identity.key, d));
        const outcome = cellOutcome(cell, keys.map((k) => answers.get(k)), metricOptions);
        for (const note of outcome.notes) progress.note(
          `run "${opts.run}" step ${cp.step}, test set "${cell.set.id}"${cell.variant.name ? ` (${cell.variant.name})` : ''}: ${note}`);
        const base = { run: opts.run, step: cp.step, testSet: cell.set.id, promptVariant: cell.variant.name };
        const predictions: PredictionRecord[] = outcome.predictions.map((p) => ({ ...base, exampleId: p.exampleId, prediction: p.prediction,
          gold: p.gold, detail: p.detail }));
        const scores: StoredScore[] = Object.entries(outcome.metrics).map(([metric, value]) => ({ ...base, metric, value, n: cell.examples.length }));
        store.transaction(() => {
          store.writePredictions(predictions);
          store.writeScores(scores);
          tables.recordCellSource({ ...base, promptVariant: cell.variant.name, modelId: identity.key,
            fingerprint: cellFingerprint(cell, identity.key, metricKey) });
        });
      };
      for (const cell of cells) {
        if (missingPerCell.get(cell) === 0) {
          progress.advance(cell.set.id, cell.examples.length, false);
          cachedCount += cell.examples.length;
          // A cell stored from the same inputs stays as it is; one stored from others is rewritten from the cache.
          if (!stored.has(cell)) writeCell(cell);
        }
      }
      if ([...missingPerCell.values()].every((n) => n === 0)) continue;

      let handle: ModelHandle | undefined;
      try {
        for (const chunk of chunksOf(items, batchExamples)) {
          const need = chunk.filter((it) => !cachedAtStart.has(it.key));
          // Answers found in the cache at the start, for cells that still needed the model.
          const fromCache = chunk.filter((it) => cachedAtStart.has(it.key) && partial.has(it.cell));
          for (const it of fromCache) progress.advance(it.cell.set.id, 1, false);
          cachedCount += fromCache.length;
          if (need.length === 0) continue;
          // One question per key: two cells can ask the same thing (two ids for one data set).
          const ask = [...new Map(need.filter((it) => !answers.has(it.key)).map((it) => [it.key, it])).values()];
          if (ask.length > 0) {
            if (!handle) {
              handle = await loader(cp);
              loaded++;
              if (handle.model.id !== identity.engineId) {
                throw new UserError(`${cp.dir}: the weights changed while being evaluated (identity ${identity.engineId} when planned, ` +
                  `${handle.model.id} when loaded); run again once the folder is complete`);
              }
            }
            const got = await askEngine(handle.model, ask);
            engineCalls++;
            tables.put(ask.map((it, j): CacheEntry => ({
              key: it.key, modelId: identity.key, source: handle!.source ?? null, testSetId: it.cell.set.id, testSetHash: it.cell.set.contentHash,
              exampleId: it.cell.examples[it.example].id, mode: it.cell.mode, answer: got[j],
            })));
            ask.forEach((it, j) => answers.set(it.key, got[j]));
          }
          computed += need.length;
          const done = new Set<Cell>();
          for (const it of need) {
            const left = missingPerCell.get(it.cell)! - 1;
            missingPerCell.set(it.cell, left);
            progress.advance(it.cell.set.id, 1, true);
            if (left === 0) done.add(it.cell);
          }
          for (const cell of [...done].sort((a, b) => a.index - b.index)) writeCell(cell);
        }
      } finally {
        handle?.dispose();
      }
    }
    const setIds = new Set(opts.testSets.map((s) => s.id));
    const variantNames = new Set(cells.map((c) => c.variant.name));
    const scores = store.scores({ run: opts.run })
      .filter((s) => steps.has(s.step) && setIds.has(s.testSet) && variantNames.has(s.promptVariant ?? ''));
    return {
      run: opts.run, scores, examples,
      computed, cached: cachedCount, modelsLoaded: loaded, engineCalls, seconds: (Date.now() - t0) / 1000,
    };
  } finally {
    progress.stop();
    if (opts.store === undefined) store.close();
  }
}

/** Checks options that depend on a cell's task (e.g. the positive label) before any work. */
function cellOutcomeCheck(cell: Cell, opts: MetricOptions): void {
  if (cell.task.kind !== 'classify' || opts.positiveLabel === undefined) return;
  if (!cell.task.labels.includes(opts.positiveLabel)) {
    throw new UserError(`--positive-label ${opts.positiveLabel}: not a label of task "${cell.task.name}" used for test set ` +
      `"${cell.set.id}" (${cell.task.labels.map((l) => `"${l}"`).join(', ')})`);
  }
}
