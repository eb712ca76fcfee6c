// Watching a training run written by another trainer (Hugging Face Trainer, PEFT, genstudy train):
// each round lists the run folder's checkpoint-N / step-N folders, evaluates the complete ones not
// evaluated yet by this watcher (evaluateGrid: a restarted watcher re-plans them, and the
// evaluation cache answers what was already asked, so it picks up where it stopped for free), then
// refreshes the analysis and the report when a control set is given. A checkpoint is what its
// content is, not its folder's name: one replaced after it was evaluated (a trainer restarted into
// the same folder) is evaluated again, and evaluateGrid moves its earlier scores to the superseded
// tables; to keep rounds cheap, a folder is hashed again only when its files' stat changed. Two
// folders for one step are refused, as evaluate refuses them. A folder still being written
// (the Trainer's tmp-checkpoint-N, .tmp files, short safetensors, a missing file) is left for a later
// round; incompleteReason says why, and the reason is logged when it changes. A checkpoint whose
// evaluation fails (removed or unreadable mid-round, a server error) is logged and tried again next
// round; the others go on. When the watcher stops it reconciles the steps evaluated with the steps
// the trainer saved (checkpoint-reconcile.ts) and reports every missing one.
import fs from 'node:fs';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-write.ts';
import { UserError } from '../errors.ts';
import { StoreProblem } from '../store/store-errors.ts';
import { checkpointIn, checkRunFolder, evaluateGrid, refuseTwoFoldersForOneStep, stepOfFolder, type GridOptions,
  type GridSummary } from '../evaluate/index.ts';
import { identifyCheckpoint, type CheckpointRef } from '../engine/index.ts';
import { readStoreScores } from '../analyze/read-scores.ts';
import { attachErrorCovariance } from '../analyze/error-covariance.ts';
import { storeExampleResults } from '../analyze/store-example-results.ts';
import { availableMetrics, buildRunSeries } from '../analyze/run-series.ts';
import { analyzeOrSkip, DEFAULT_OPTIONS, type AnalysisResult, type AnalyzeOptions } from '../analyze/analysis.ts';
import { formatTable, jsonParts } from '../analyze/format.ts';
import { writeReport } from '../report/index.ts';
import { describeMissing, reconcileRun, savedStepsFromTrainerState } from './checkpoint-reconcile.ts';

/** Shortest and longest pause between rounds. */
export const MIN_INTERVAL_MS = 100;
export const MAX_INTERVAL_MS = 3_600_000;

export interface WatchOptions extends Omit<GridOptions, 'checkpoints' | 'identify'> {
  /** The folder the trainer writes checkpoint-N folders into. */
  runDir: string;
  /** Base model folder for LoRA adapter checkpoints (default: the adapter's base_model_name_or_path). */
  baseModel?: string;
  /** A folder with tokenizer.json for checkpoints the trainer saved without one. */
  tokenizerDir?: string;
  /** In-domain test set: with it, the analysis and the report are refreshed after each round that evaluated something. */
  control?: string;
  /** Metric analysed (default: accuracy when present, else the only metric). */
  metric?: string;
  analysis?: Partial<Omit<AnalyzeOptions, 'control'>>;
  /** Where analysis.json / analysis.txt and report/ go (default: <store folder>/<run>-watch, a / in the run's name made -). */
  outDir?: string;
  /** Pause between rounds in ms (default 30 s), bounded to [MIN_INTERVAL_MS, MAX_INTERVAL_MS]. */
  intervalMs?: number;
  /** One round, then return (scripts, tests). */
  once?: boolean;
  /** Stops the watcher after the current round (the CLI aborts it on SIGINT). */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called after each round (tests, progress). */
  onRound?: (round: WatchRound) => void;
  /** The steps the trainer saves (genstudy's plan for its hf launch); default: what trainer_state.json says. */
  savedSteps?: number[];
}

export interface WatchRound {
  /** Steps evaluated in this round. */
  evaluated: number[];
  /** Checkpoint folders left for a later round, with the reason. */
  waiting: string[];
  /** Checkpoints whose evaluation failed this round (tried again next round), with the reason. */
  failed: { step: number; dir: string; reason: string }[];
  summary?: GridSummary;
  /** The refreshed analysis, or why there is none (yet). */
  analysis?: AnalysisResult;
  analysisSkipped?: string;
  /** What the analysis could not use from the store's per-example answers (analyze/error-covariance.ts). */
  analysisNotes?: string[];
  report?: string;
}

export interface WatchResult {
  rounds: number;
  evaluatedSteps: number[];
  /** Steps the trainer saved that were deleted before they were evaluated (save_total_limit). */
  missingSteps: number[];
  /** Checkpoints still failing when the watcher stopped. */
  failing: { step: number; dir: string; reason: string }[];
}

/** The complete checkpoint folders of `runDir` and the ones still being written (with why). */
export function scanRunFolder(runDir: string, baseModel?: string, tokenizerDir?: string): { complete: CheckpointRef[]; waiting: string[] } {
  if (!fs.existsSync(runDir) || !fs.statSync(runDir).isDirectory()) {
    throw new UserError(`${runDir}: no such folder (genstudy watch expects the folder a trainer writes checkpoint-N folders into)`);
  }
  const complete: (CheckpointRef & { name: string })[] = [];
  const waiting: string[] = [];
  const names = fs.readdirSync(runDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && stepOfFolder(d.name) !== undefined).map((d) => d.name);
  for (const name of names) {
    const full = path.join(runDir, name);
    // A folder that cannot be read yet (an adapter config half-written by a writer that does not
    // rename) waits like an incomplete one.
    let found: ReturnType<typeof checkpointIn>;
    try {
      found = checkpointIn(full, { baseModel, tokenizerDir });
    } catch (err) {
      // A folder removed or unreadable between listing and reading (a rotated checkpoint) waits too.
      found = { why: (err as Error).message };
    }
    if ('why' in found) waiting.push(`${full}: incomplete checkpoint (${found.why}); left for a later round`);
    else complete.push({ step: stepOfFolder(name)!, ...found, name });
  }
  refuseTwoFoldersForOneStep(runDir, complete);
  complete.sort((a, b) => a.step - b.step);
  return { complete: complete.map(({ name: _name, ...cp }) => cp), waiting };
}

/** What a step was evaluated as: its folder's files as stat sees them, and its content identity (the cache's model key). */
interface Evaluated { files: string; key: string; weights: string }

/**
 * A checkpoint folder's files as stat sees them (names, inodes, sizes, modification times): a
 * folder replaced or rewritten changes this, and reading it hashes nothing.
 */
function folderFiles(dir: string): string {
  return [dir, ...fs.readdirSync(dir).sort().map((name) => {
    const st = fs.statSync(path.join(dir, name));
    return `${name}\0${st.ino}\0${st.size}\0${st.mtimeMs}`;
  })].join('\n');
}

/** Whether the watcher may add the folder's checkpoints to the run (checkRunFolder), said once before the first round. */
function checkRunFolderOnce(opts: WatchOptions, log: (line: string) => void): { joining: boolean } {
  if (opts.runFolder === undefined) return { joining: false };
  const joining = checkRunFolder(opts.store ?? opts.storePath, opts.run, opts.runFolder, opts.runNamed === true);
  if (joining !== undefined) log(joining);
  return { joining: joining !== undefined };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) { resolve(); return; }
    const timer = setTimeout(done, ms);
    function done(): void { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Analysis (analysis.json, analysis.txt) and report of the run from the store, or why not yet. */
type RefreshedOutputs = Pick<WatchRound, 'analysis' | 'analysisSkipped' | 'analysisNotes' | 'report'>;

async function refreshOutputs(opts: WatchOptions, outDir: string): Promise<RefreshedOutputs> {
  const rows = readStoreScores(opts.storePath, '').filter((r) => r.run === opts.run);
  const metrics = availableMetrics(rows);
  const metric = opts.metric ?? (metrics.includes('accuracy') ? 'accuracy' : metrics.length === 1 ? metrics[0] : undefined);
  if (metric === undefined) return { analysisSkipped: `several metrics (${metrics.join(', ')}); choose one with --metric` };
  const analyzeOptions: AnalyzeOptions = { ...DEFAULT_OPTIONS, ...opts.analysis, control: opts.control! };
  await mkdir(outDir, { recursive: true });
  const out: RefreshedOutputs = {};
  const series = buildRunSeries(rows, metric);
  out.analysisNotes = attachErrorCovariance(series, storeExampleResults(opts.storePath, ''), { metric, testSets: [analyzeOptions.control] });
  const outcome = analyzeOrSkip(series, analyzeOptions);
  if ('skipped' in outcome) {
    out.analysisSkipped = outcome.skipped;
    return out;
  }
  const analysis = outcome.analysis;
  writeFileAtomic(path.join(outDir, 'analysis.json'), jsonParts(analysis));
  writeFileAtomic(path.join(outDir, 'analysis.txt'), formatTable(analysis, analyzeOptions));
  out.analysis = analysis;
  const { control: _control, ...analysisOpts } = analyzeOptions;
  const report = await writeReport(path.join(outDir, 'report'), {
    storePath: opts.storePath, control: opts.control, metric, title: `genstudy watch: ${opts.run}`, analysis: analysisOpts,
  });
  out.report = report.html;
  return out;
}

/** Two evaluations' summaries as one (the watcher evaluates one checkpoint per call). */
function addSummaries(a: GridSummary, b: GridSummary): GridSummary {
  return {
    run: a.run, scores: [...a.scores, ...b.scores], examples: a.examples + b.examples, computed: a.computed + b.computed, cached: a.cached + b.cached,
    modelsLoaded: a.modelsLoaded + b.modelsLoaded, engineCalls: a.engineCalls + b.engineCalls, seconds: a.seconds + b.seconds,
  };
}

/** The evaluateGrid options among the watcher's. */
function gridOptionsOf(opts: WatchOptions): Omit<GridOptions, 'checkpoints'> {
  const watchOnly = new Set<string>(['runDir', 'baseModel', 'tokenizerDir', 'control', 'metric', 'analysis', 'outDir', 'intervalMs', 'once',
    'signal', 'log', 'onRound']);
  return Object.fromEntries(Object.entries(opts).filter(([k]) => !watchOnly.has(k))) as Omit<GridOptions, 'checkpoints'>;
}

export async function watchRun(opts: WatchOptions): Promise<WatchResult> {
  const log = opts.log ?? (() => undefined);
  const interval = opts.intervalMs ?? 30_000;
  if (!Number.isFinite(interval) || interval < MIN_INTERVAL_MS || interval > MAX_INTERVAL_MS) {
    throw new UserError(`interval ${interval / 1000} s: expected between ${MIN_INTERVAL_MS / 1000} s and ${MAX_INTERVAL_MS / 1000} s`);
  }
  const runDir = path.resolve(opts.runDir);
  const outDir = path.resolve(opts.outDir ?? path.join(path.dirname(path.resolve(opts.storePath)), `${opts.run.replace(/[\\/]/g, '-')}-watch`));
  // Refused before the first round: inside it, a refusal would be retried every round.
  const { joining } = checkRunFolderOnce(opts, log);
  // Said once above: each checkpoint's evaluation need not say it again.
  const gridOptions = joining ? { ...gridOptionsOf(opts), runFolder: undefined } : gridOptionsOf(opts);
  const evaluated = new Map<number, Evaluated>();
  const evaluatedSteps: number[] = [];
  let lastWaiting = '';
  const failing = new Map<string, { step: number; dir: string; reason: string }>();
  let rounds = 0;
  for (;;) {
    const { complete, waiting } = scanRunFolder(runDir, opts.baseModel, opts.tokenizerDir);
    const waitingText = waiting.join('\n');
    if (waitingText !== lastWaiting && waiting.length > 0) for (const w of waiting) log(`waiting for ${w}`);
    lastWaiting = waitingText;
    const round: WatchRound = { evaluated: [], waiting, failed: [] };
    const failed = (cp: CheckpointRef, err: unknown): void => {
      // A damaged or locked store fails every checkpoint alike: stop, saying so once.
      if (err instanceof StoreProblem) throw err;
      const reason = err instanceof UserError ? err.message : ((err as Error).stack ?? String(err));
      round.failed.push({ step: cp.step, dir: cp.dir, reason });
      failing.set(cp.dir, { step: cp.step, dir: cp.dir, reason });
      log(`step ${cp.step} (${cp.dir}) failed, tried again next round: ${reason}`);
    };
    const fresh: { cp: CheckpointRef; now: Evaluated }[] = [];
    for (const cp of complete) {
      try {
        const files = folderFiles(cp.dir);
        const before = evaluated.get(cp.step);
        if (before?.files === files) continue;
        const identity = identifyCheckpoint(cp);
        const now = { files, key: identity.key, weights: identity.weights };
        if (before?.key === now.key) { evaluated.set(cp.step, now); continue; }
        if (before !== undefined) {
          log(`step ${cp.step}: ${cp.dir} changed since it was evaluated (${before.weights === now.weights
            ? 'its config or tokenizer files; evaluating it again, its scores replaced'
            : `weights ${before.weights} -> ${now.weights}; evaluating it again, its earlier scores moved to superseded_scores`})`);
        }
        fresh.push({ cp, now });
      } catch (err) {
        failed(cp, err);
      }
    }
    if (fresh.length > 0) {
      log(`evaluating step${fresh.length > 1 ? 's' : ''} ${fresh.map((f) => f.cp.step).join(', ')} of ${runDir}`);
      // One checkpoint at a time, so one that fails (deleted mid-round, unreadable, a server's
      // error) is logged and retried next round while the others are evaluated.
      for (const { cp, now } of fresh) {
        try {
          const s = await evaluateGrid({ ...gridOptions, checkpoints: [cp] });
          round.summary = round.summary ? addSummaries(round.summary, s) : s;
          evaluated.set(cp.step, now);
          round.evaluated.push(cp.step);
          failing.delete(cp.dir);
        } catch (err) {
          failed(cp, err);
        }
      }
      evaluatedSteps.push(...round.evaluated);
      if (round.evaluated.length > 0) {
        log(`evaluated step${round.evaluated.length > 1 ? 's' : ''} ${round.evaluated.join(', ')}: ${round.summary!.computed} answers ` +
          `from the model, ${round.summary!.cached} from the cache`);
      }
      if (opts.control !== undefined && round.evaluated.length > 0) {
        Object.assign(round, await refreshOutputs(opts, outDir));
        for (const note of round.analysisNotes ?? []) log(`note: ${note}`);
        if (round.analysis) log(`analysis and report refreshed: ${round.report}`);
        else log(`no analysis yet: ${round.analysisSkipped}`);
      }
    }
    rounds++;
    opts.onRound?.(round);
    if (opts.once || opts.signal?.aborted) break;
    await sleep(interval, opts.signal);
    if (opts.signal?.aborted) break;
  }
  const missing = reconcile(opts, runDir, evaluatedSteps);
  if (missing.length > 0) log(describeMissing(missing));
  return { rounds, evaluatedSteps, missingSteps: missing, failing: [...failing.values()] };
}

/** The saved steps that are neither evaluated (by this watcher or before, per the store) nor on disk. */
function reconcile(opts: WatchOptions, runDir: string, evaluated: number[]): number[] {
  const saved = opts.savedSteps ?? savedStepsFromTrainerState(runDir);
  return saved ? reconcileRun({ saved, evaluated, storePath: opts.storePath, run: opts.run, runDir }) : [];
}
