// Runs a study: expands the study file into runs; each run trains (or, for a base method, does
// not), its checkpoints are evaluated as they are written, then the analysis and the report
// follow. Everything is resumable: the trainer resumes from its last checkpoint and the
// evaluation cache answers what was already asked, so running a study again does only what is
// missing.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { expandStudy, type RunPlan } from '../config/expand.ts';
import type { Study, StudyModel } from '../config/schema.ts';
import { generateSuite, suiteManifestText, writeSuite } from '../synth/index.ts';
import { DEFAULT_STORE_FILE, ResultStore, type RunRecord } from '../store/result-store.ts';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets, resolveTask, syntheticArg, type EvalTestSet, type ProgressSink as EvalProgress } from '../evaluate/index.ts';
import type { ModelLoader } from '../types.ts';
import { initModel, LORA_DEFAULTS, TRAINER_OBJECTIVE, tinyGpt2Config, tinyLlamaConfig, train, type ProgressSink as TrainProgress, type TrainOptions } from '../train/index.ts';
import { trainHf } from '../train/hf/index.ts';
import { remoteLoader, servedLoader } from '../engine/remote/index.ts';
import { watchRun } from './watch.ts';
import { describeMissing, reconcileRun } from './checkpoint-reconcile.ts';
import { readStoreScores } from '../analyze/read-scores.ts';
import { readRegistry } from '../data/index.ts';
import { buildRunSeries } from '../analyze/run-series.ts';
import { analyzeOrSkip, type AnalysisResult, type AnalyzeOptions } from '../analyze/analysis.ts';
import { fticlDemonstrations, loadTrainingExamples } from './training-data.ts';
import { gradAccumOf, gridShotsFor, objectiveOf, studySettings, trainerSettingsOf, type StudySettings } from '../config/settings.ts';
import { STUDY_A_PAD_TO, taskPreset, taskShortName } from '../tasks/index.ts';
import { defaultLoraTargetsOf } from '../engine/builtin/lora-defaults.ts';
import { familyFor } from '../engine/builtin/registry.ts';
import { modelSizeProblem } from '../engine/builtin/model-size.ts';
import { studyVersions } from './versions.ts';
import type { StudyStages } from './study-progress.ts';

/** Every from-scratch model starts from the same weights, whatever the run's seed (which orders the data). */
const INIT_SEED = 0;
/** Training log granularity (store and progress lines): fine enough for the loss curve, quiet enough to read. */
const LOG_EVERY = 5;

export interface StudyPaths { studyFile: string; out: string; store: string; runs: string; models: string; synthetic: string }

export interface RunStudyOptions {
  /** Overrides the study's out folder. */
  out?: string;
  /** Only these runs (ids as expandStudy makes them). */
  only?: string[];
  log?: (line: string) => void;
  trainProgress?: TrainProgress;
  evalProgress?: EvalProgress;
  /** Told which run starts and which checkpoints are evaluated next (the study's progress view). */
  stages?: StudyStages;
}

export interface StudyResult {
  paths: StudyPaths;
  runs: RunPlan[];
  analysis: AnalysisResult | null;
  /** Why there is no analysis (e.g. too few checkpoints), when there is none. */
  analysisSkipped?: string;
  analyzeOptions: AnalyzeOptions;
  /** Model work done by this invocation: example answers computed (not from the cache) and optimiser steps taken. */
  work: { answersComputed: number; answersCached: number; trainingSteps: number };
}

export function studyPaths(study: Study, studyFile: string, outOverride?: string): StudyPaths {
  const base = path.dirname(path.resolve(studyFile));
  const out = path.resolve(outOverride ?? path.resolve(base, study.out ?? study.name));
  return {
    studyFile: path.resolve(studyFile), out, store: path.join(out, DEFAULT_STORE_FILE), runs: path.join(out, 'runs'),
    models: path.join(out, 'models'), synthetic: path.join(out, 'synthetic'),
  };
}

export async function runStudy(study: Study, studyFile: string, opts: RunStudyOptions = {}): Promise<StudyResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const paths = studyPaths(study, studyFile, opts.out);
  const studyDir = path.dirname(paths.studyFile);
  const dataDir = study.dataDir === undefined ? undefined : path.resolve(studyDir, study.dataDir);

  checkModelsPresent(study.models, studyDir, paths.studyFile);
  const settings = studySettings(study);
  if (study.evaluation.remote && !study.evaluation.serve) {
    const full = study.methods.filter((m) => m.kind !== 'base' && m.finetune === 'full').map((m) => m.name);
    // A server serves one full model, and vLLM does not say which weights: every full checkpoint
    // would be answered by whatever the server loaded. LoRA checkpoints are loaded on it as adapters.
    if (full.length) {
      throw new UserError(`${paths.studyFile}: evaluation.remote evaluates base models and LoRA checkpoints; method(s) ${full.join(', ')} fine-tune fully, ` +
        'and each full checkpoint needs a server of its own: give evaluation.serve (a command genstudy starts on each checkpoint, e.g. ' +
        '"vllm serve {model} --port {port}") instead of evaluation.remote (docs/scale.md)');
    }
  }
  let runs = expandStudy(study);
  if (opts.only?.length) {
    const unknown = opts.only.filter((id) => !runs.some((r) => r.id === id));
    if (unknown.length) throw new UserError(`--only: no run ${unknown.join(', ')} in the study; it has ${runs.map((r) => r.id).join(', ')}`);
    runs = runs.filter((r) => opts.only!.includes(r.id));
  }
  // A start that fails (a missing data set, a bad control, a model too large) leaves no folder behind that it made.
  // (mkdirSync returns the first folder it had to make, or undefined when there was none.)
  const created = fs.mkdirSync(paths.out, { recursive: true });
  let suiteDir: string | undefined;
  let testSets: EvalTestSet[];
  try {
    suiteDir = await prepareSynthetic(study, paths);
    study.models.forEach((m, i) => checkInitSize(m, i, { studyDir, suiteDir, studyFile: paths.studyFile }));
    testSets = tagTestSets(study, settings, await studyTestSets(study, settings, suiteDir, dataDir, paths.studyFile));
    if (study.evaluation.control !== undefined && !testSets.some((t) => t.id === study.evaluation.control)) {
      throw new UserError(`${paths.studyFile}: evaluation.control "${study.evaluation.control}" is not among the test sets (${testSets.map((t) => t.id).join(', ')})`);
    }
  } catch (err) {
    if (created !== undefined) fs.rmSync(created, { recursive: true, force: true });
    throw err;
  }
  log(`genstudy: study "${study.name}": ${runs.length} run(s), ${testSets.length} test sets; results in ${paths.out}`);
  for (const note of rowNotes(testSets)) log(`genstudy: ${note}`);

  const work = { answersComputed: 0, answersCached: 0, trainingSteps: 0 };
  const e = study.evaluation;
  const served = e.serve ? servedLoader({ command: e.serve.command, startupMs: e.serve.startupSeconds * 1000, log: (line) => log(`genstudy: serve: ${line}`) }) : undefined;
  let loader: ModelLoader | undefined = served;
  try {
    loader ??= e.remote === undefined ? undefined : remoteLoader({
      urls: e.remote.urls, modelName: e.remote.model, retries: e.remote.retries, ...(e.remote.timeout === undefined ? {} : { timeoutMs: e.remote.timeout * 1000 }),
      ...(e.remote.startupSeconds === undefined ? {} : { startupMs: e.remote.startupSeconds * 1000 }), identity: e.remote.identity,
    });
  } catch (err) {
    throw err instanceof UserError ? new UserError(`${paths.studyFile}: evaluation.remote: ${err.message}`) : err;
  }
  // One handle on the results store for the whole study: training logs, evaluation, run records
  // and the analysis all go through it.
  const store = ResultStore.open(paths.store);
  try {
    try {
      for (const [i, run] of runs.entries()) {
        if (opts.stages) opts.stages.run(i, runs.length, run.id);
        else log(`genstudy: run ${i + 1}/${runs.length}: ${run.id}`);
        await executeRun(study, run, { paths, studyDir, dataDir, suiteDir, testSets, settings, log, opts, work, loader, store });
      }
    } finally {
      await served?.close();
    }
    return analyseStudy(study, { paths, runs, work, store });
  } finally {
    store.close();
  }
}

/** The study's partial correlations over its fine-tuned runs, or why there are none. */
function analyseStudy(study: Study, c: { paths: StudyPaths; runs: RunPlan[]; work: StudyResult['work']; store: ResultStore }): StudyResult {
  const { paths, runs, work } = c;

  const { metric: _metric, ...options } = study.analysis;
  const analyzeOptions: AnalyzeOptions = { ...options, control: study.evaluation.control ?? '' };
  if (study.evaluation.control === undefined) {
    return { paths, runs, analysis: null, analysisSkipped: 'the study names no evaluation.control, so there are no partial correlations', analyzeOptions, work };
  }
  const rows = readStoreScores(c.store, '').filter((r) => runs.some((p) => p.id === r.run && p.method.kind !== 'base'));
  const series = buildRunSeries(rows, study.analysis.metric);
  const outcome = analyzeOrSkip(series, analyzeOptions);
  if ('skipped' in outcome) return { paths, runs, analysis: null, analysisSkipped: outcome.skipped, analyzeOptions, work };
  return { paths, runs, analysis: outcome.analysis, analyzeOptions, work };
}

/** evaluation.testSets: data set ids and spec files as evaluate takes them; "synthetic" (every set of the suite) or "synthetic:a,b". */
async function studyTestSets(study: Study, settings: StudySettings, suiteDir: string | undefined, dataDir: string | undefined, studyFile: string): Promise<EvalTestSet[]> {
  const out: EvalTestSet[] = [];
  for (const [i, arg] of study.evaluation.testSets.entries()) {
    const field = `${studyFile}: evaluation.testSets[${i}]`;
    const synthetic = syntheticArg(arg);
    if (synthetic) {
      if (!suiteDir) throw new UserError(`${field}: "${arg}" needs a "synthetic:" section in the study`);
      const sets = await resolveTestSets([suiteDir], { limit: study.evaluation.limit });
      const wanted = synthetic.sets;
      for (const w of wanted ?? []) {
        if (!sets.some((s) => s.id === w)) throw new UserError(`${field}: the synthetic suite has no set "${w}" (it has ${sets.map((s) => s.id).join(', ')})`);
      }
      out.push(...sets.filter((s) => !wanted || wanted.includes(s.id)));
    } else {
      try {
        // Rows without gold are study B's "-"; study A's dropped labels (neutral) are its binarisation, kept only as a replayed bug.
        const studyA = taskPreset(readRegistry().sets[arg.split(':')[0]]?.preset)?.study === 'A';
        out.push(...(await resolveTestSets([arg], {
          limit: study.evaluation.limit, dataDir, origin: `${field} "${arg}"`, unlabeledRows: studyA ? 'drop' : settings.unlabeledRows,
          replayBugs: settings.studyAMnliNeutral === 'keep-as-bug',
        })));
      } catch (err) {
        // An error that already names where it is (the origin passed down) is not wrapped twice.
        if (err instanceof UserError && err.field === undefined) throw new UserError(`${field}: ${err.message}`, { file: studyFile, field: `evaluation.testSets[${i}]` });
        throw err;
      }
    }
  }
  return out;
}

/**
 * Records each test set's task and whether it is in-domain for the training set of that task, as
 * the report's study-B matrices read them (test_sets.spec.task / spec.domain), and the metric the
 * report shows for a generation set (spec.metric: the ROUGE-L F the protocol reports).
 */
function tagTestSets(study: Study, settings: StudySettings, sets: EvalTestSet[]): EvalTestSet[] {
  const inDomain = new Set(study.training.flatMap((t) => t.inDomain ?? []));
  return sets.map((set) => {
    const preset = taskPreset(set.taskPreset);
    if (preset?.study !== 'B') return set;
    const spec: Record<string, unknown> = { ...set.spec, task: preset.shortName, domain: inDomain.has(set.id) ? 'in-domain' : 'cross-domain' };
    if (preset.kind === 'generate') {
      spec.metric = settings.rouge === 'bootstrap-mid' ? 'rougeL_mid_f' : 'rougeL_f';
    }
    return { ...set, spec };
  });
}

/** What happened to rows without a gold label, per test set: dropped (and how many), or kept and counted wrong. */
function rowNotes(sets: readonly EvalTestSet[]): string[] {
  const out: string[] = [];
  for (const set of sets) {
    const bug = set.spec.replayedBug as { label: string; gold: string; kept: number; source: string } | undefined;
    if (bug) out.push(`test set "${set.id}": ${bug.kept} of its ${set.examples.length} rows are ${bug.label} rows kept with gold "${bug.gold}" (studyAMnliNeutral: keep-as-bug, a replayed bug of ${bug.source})`);
    const kept = set.spec.unlabeledKept as number | undefined;
    if (kept) out.push(`test set "${set.id}": ${kept} of its ${set.examples.length} rows have no gold label (${set.unlabeled!.map((l) => `"${l}"`).join(', ')}); they are kept and count as wrong (unlabeledRows: wrong)`);
    const dropped = (set.spec.dropped as { reason: string; count: number }[] | undefined) ?? [];
    const n = dropped.reduce((a, d) => a + d.count, 0);
    if (n > 0) {
      out.push(`test set "${set.id}": ${n} rows dropped (${dropped.map((d) => `${d.count} ${d.reason}`).join('; ')}); its ${set.examples.length} rows are the first ${set.examples.length} with a gold label, read from the file's first ${String(set.spec.rowsRead ?? '?')} rows`);
    }
  }
  return out;
}

/**
 * Writes the synthetic suite (its files double as the from-scratch tokenizer), and writes it again
 * when this version of genstudy builds a different one from the same options: the changed test
 * sets are then evaluated afresh (their content hashes change) and the rest is reused.
 */
async function prepareSynthetic(study: Study, paths: StudyPaths): Promise<string | undefined> {
  if (!study.synthetic) return undefined;
  const suite = generateSuite(study.synthetic);
  const manifest = path.join(paths.synthetic, 'suite.json');
  const current = fs.existsSync(manifest) ? fs.readFileSync(manifest, 'utf8') : null;
  if (current !== suiteManifestText(suite)) await writeSuite(paths.synthetic, suite);
  return paths.synthetic;
}

interface RunContext {
  paths: StudyPaths; studyDir: string; dataDir?: string; suiteDir?: string; testSets: EvalTestSet[]; settings: StudySettings;
  log: (line: string) => void; opts: RunStudyOptions; work: StudyResult['work'];
  /** evaluation.remote's servers, or the ones evaluation.serve starts; else the built-in engine (undefined). */
  loader?: ModelLoader;
  /** The study's one handle on its results store. */
  store: ResultStore;
}

async function executeRun(study: Study, run: RunPlan, ctx: RunContext): Promise<void> {
  const modelDir = await resolveModel(run, ctx);
  const { method } = run;
  const runRecord: RunRecord = {
    // The report's study-B matrices read the method kind (base / ft / fticl) from runs.method.
    id: run.id, model: run.model.id, trainingSet: run.trainingSet.id, method: method.kind, seed: run.seed,
    studyFile: ctx.paths.studyFile, versions: studyVersions(),
    attributes: {
      method_name: method.name, finetune: method.kind === 'base' ? null : method.finetune,
      // Only a training set with an explicit task takes part in study B's task x test set matrices.
      training_task: taskShortName(run.trainingSet.task), control_test_set: study.evaluation.control,
      shots: run.shots, prompt_variant: reportedVariant(study, ctx.settings, run.shots), train_size: run.trainingSet.size,
      study: study.name,
    },
  };
  // Everything that can fail on the study's input is read before the run is recorded, so a bad
  // study leaves no runs row behind.
  const training = method.kind === 'base' ? undefined
    : await loadTrainingExamples(run.trainingSet, { studyDir: ctx.studyDir, dataDir: ctx.dataDir, suiteDir: ctx.suiteDir, replayBugs: ctx.settings.studyAMnliNeutral === 'keep-as-bug' });
  if (training?.replayed) {
    const { bug, kept } = training.replayed;
    ctx.log(`genstudy: ${run.id}: training set "${run.trainingSet.id}": ${kept} ${bug.label} rows kept and trained toward token id ${bug.trainTokenId} ` +
      `(studyAMnliNeutral: keep-as-bug, a replayed bug of ${bug.source})`);
  }
  recordRun(ctx.store, runRecord);

  const { settings } = ctx;
  const variants = settings.grid === 'every-k-and-prompt'
    // evaluate_cross.py: every model at every k of the test set's task, with both prompts; the run's own k is added (add-run-k) so its reported cell exists.
    ? (set: EvalTestSet) => {
      const ks = [...new Set([...gridShotsFor(settings, set.taskPreset), ...(settings.gridRunShots === 'add-run-k' ? [run.shots] : [])])];
      return promptVariants(taskPreset(set.taskPreset)?.prompts ?? [1], ks);
    }
    : promptVariants(study.evaluation.prompts, run.shots > 0 ? [run.shots] : undefined);
  const studyAOnly = ctx.testSets.every((t) => taskPreset(t.taskPreset)?.study === 'A') || taskPreset(study.evaluation.task)?.study === 'A';
  // What every evaluation of this run shares (the hf backend's watcher too).
  const gridOptions = {
    storePath: ctx.paths.store, store: ctx.store, run: run.id, runModel: run.model.id, testSets: ctx.testSets, variants,
    task: study.evaluation.task, scoring: study.evaluation.scoring, progress: ctx.opts.evalProgress, loader: ctx.loader,
    labelTokens: settings.labelTokens, studyBLabelTokens: settings.studyBLabelTokens, bos: settings.bos, zeroShotPrefix: settings.zeroShotPrefix,
    ...(studyAOnly && settings.readingPosition === 'padded-128' ? { padTo: STUDY_A_PAD_TO } : {}),
    positiveLabel: settings.positiveLabel ?? (studyAOnly ? settings.studyAPositiveLabel : undefined),
  };
  const evaluate = async (checkpoints: { step: number; dir: string; base?: string; tokenizer?: string }[]) => {
    ctx.opts.stages?.evaluate(checkpoints.map((c) => c.step));
    const summary = await evaluateGrid({ ...gridOptions, checkpoints });
    ctx.work.answersComputed += summary.computed;
    ctx.work.answersCached += summary.cached;
  };

  if (training === undefined) {
    await evaluate([{ step: 0, dir: modelDir }]);
    return;
  }

  const runDir = path.join(ctx.paths.runs, run.id);
  const taskName = run.trainingSet.task ?? training.taskPreset ?? study.evaluation.task;
  const task = resolveTask({ task: taskName, scoring: study.evaluation.scoring }, ctx.testSets.find((t) => t.id === study.evaluation.control) ?? ctx.testSets[0]);
  const options: TrainOptions = {
    model: modelDir, outDir: runDir, task, train: training.examples, dataName: run.trainingSet.id,
    demonstrations: method.kind === 'fticl' ? await fticlDemonstrations(study, run, training.examples, ctx.dataDir) : undefined,
    objective: TRAINER_OBJECTIVE[objectiveOf(method, run.trainingSet)],
    // llama2-ids are evaluation-only ids; a label-token objective trains the in-context token (the same ids with Llama-2's Prompt-1).
    labelTokens: settings.labelTokens === 'llama2-ids' ? 'in-context' : settings.labelTokens,
    ...(training.replayed ? { labelTokenIds: { [training.replayed.bug.label]: training.replayed.bug.trainTokenId } } : {}),
    ...(studyAOnly && settings.readingPosition === 'padded-128' && objectiveOf(method, run.trainingSet) === 'label-token' ? { padTo: STUDY_A_PAD_TO } : {}),
    method: method.finetune,
    lora: method.finetune === 'lora' ? { r: method.lora?.r ?? LORA_DEFAULTS.r, alpha: method.lora?.alpha ?? LORA_DEFAULTS.alpha, dropout: method.lora?.dropout ?? LORA_DEFAULTS.dropout, targetModules: method.lora?.targets ?? defaultLoraTargetsOf(modelDir) } : undefined,
    lr: method.lr!, weightDecay: method.weightDecay, schedule: method.schedule, warmupRatio: method.warmupRatio,
    batchSize: method.batchSize, gradAccum: gradAccumOf(method), ...trainerSettingsOf(settings, method, run.trainingSet), log: (line) => ctx.log(`genstudy: ${run.id}: ${line}`),
    epochs: method.epochs, maxSteps: method.steps, seed: run.seed, trainSize: run.trainingSet.size,
    checkpoints: study.checkpoints, store: ctx.store, run: run.id, progress: ctx.opts.trainProgress, logEvery: LOG_EVERY,
  };
  if (method.backend === 'hf') {
    ctx.work.trainingSteps += await trainOnHf(study, options, { ...ctx, runDir, modelDir, gridOptions, evaluate });
  } else {
    const trained = await train({
      ...options,
      onCheckpoint: async ({ step }) => {
        const found = discoverCheckpoints(runDir, { baseModel: modelDir }).checkpoints.filter((c) => c.step === step);
        if (found.length) await evaluate(found);
      },
    });
    ctx.work.trainingSteps += trained.steps - (trained.resumedFrom ?? 0);
  }
  // The trainer records its own settings on the run; the study's description of it wins.
  recordRun(ctx.store, runRecord);
  // Checkpoints written by an earlier, interrupted invocation (or before a resume) are evaluated
  // here; the cache makes this free for those already done.
  await evaluate(discoverCheckpoints(runDir, { baseModel: modelDir, tokenizerDir: modelDir }).checkpoints);
}

/** Polling pause of the watcher beside an hf launch: checkpoints come minutes apart at real scale. */
const HF_WATCH_INTERVAL_MS = 2000;

/**
 * A run on the hf backend: step 0 is the base model (the Trainer saves no checkpoint before its
 * first step); the launch trains in child processes while the watcher evaluates each checkpoint-N
 * it completes; the Trainer's log_history goes into the store. Returns the optimiser steps taken.
 */
async function trainOnHf(study: Study, options: TrainOptions, c: RunContext & {
  runDir: string; modelDir: string; gridOptions: Record<string, unknown> & { storePath: string; run: string };
  evaluate: (cps: { step: number; dir: string }[]) => Promise<void>;
}): Promise<number> {
  const { progress: _progress, onCheckpoint: _cp, onStep: _step, ...hfOptions } = options;
  if (study.checkpoints.atStart) await c.evaluate([{ step: 0, dir: c.modelDir }]);
  const hf = study.hf;
  const before = fs.existsSync(c.runDir) ? Math.max(0, ...fs.readdirSync(c.runDir).map((n) => Number(/^checkpoint-(\d+)$/.exec(n)?.[1] ?? 0))) : 0;
  fs.mkdirSync(c.runDir, { recursive: true });
  const controller = new AbortController();
  // A watcher that fails is reported and training goes on: the checkpoints it missed are evaluated
  // when training ends (the caller's discoverCheckpoints), never an unhandled rejection mid-run.
  const watching = watchRun({
    ...(c.gridOptions as Omit<Parameters<typeof watchRun>[0], 'runDir'>), runDir: c.runDir, baseModel: c.modelDir, tokenizerDir: c.modelDir,
    intervalMs: HF_WATCH_INTERVAL_MS, signal: controller.signal, log: (line) => c.log(`genstudy: watch: ${line}`),
    onRound: (r) => { if (r.summary) { c.work.answersComputed += r.summary.computed; c.work.answersCached += r.summary.cached; } },
  }).catch((err: unknown) => {
    c.log(`genstudy: watch: stopped (${err instanceof Error ? err.message : String(err)}); training goes on and its checkpoints are evaluated when it ends`);
    return undefined;
  });
  let trained;
  try {
    trained = await trainHf({ ...hfOptions, trainingArguments: hf.trainingArguments, acceptCheckpointGaps: hf.acceptCheckpointGaps }, {
      launcher: hf.launcher, python: hf.python, processes: hf.processes,
      accelerateConfig: hf.accelerateConfig === undefined ? undefined : path.resolve(c.studyDir, hf.accelerateConfig),
    }, { onOutput: (chunk) => { for (const line of chunk.split('\n')) if (line.trim()) c.log(`genstudy: hf: ${line}`); } });
  } finally {
    controller.abort();
    await watching;
  }
  const missing = reconcileRun({ saved: trained.prepared.saveSteps, evaluated: (await watching)?.evaluatedSteps ?? [], storePath: c.gridOptions.storePath, run: c.gridOptions.run, runDir: c.runDir });
  if (missing.length > 0) c.log(`genstudy: ${c.gridOptions.run}: ${describeMissing(missing)}`);
  return trained.prepared.totalSteps - before;
}

/** Upserts the run, keeping attributes others (the trainer) recorded that this record does not name. */
function recordRun(store: ResultStore, record: RunRecord): void {
  const earlier = store.runs().find((r) => r.id === record.id);
  store.upsertRun({ ...record, attributes: { ...earlier?.attributes, ...record.attributes } });
}

/**
 * Models named by path must be there before anything runs; every missing one is reported at once,
 * each with the command that downloads it.
 */
function checkModelsPresent(models: readonly StudyModel[], studyDir: string, studyFile: string): void {
  const missing = models.filter((m) => m.path !== undefined && !fs.existsSync(path.join(path.resolve(studyDir, m.path), 'config.json')));
  if (missing.length === 0) return;
  const lines = missing.map((m) => {
    const dir = path.resolve(studyDir, m.path!);
    const pull = m.hub ? `genstudy data pull ${m.hub} --repo-type model` : 'genstudy data pull <hub id> --repo-type model (the study names no models[].hub)';
    const smaller = m.smaller ? `; to try the pipeline on a small machine first: genstudy data pull ${m.smaller} --repo-type model` : '';
    return `  - "${m.id}": ${dir} has no config.json. Download: ${pull}${smaller}`;
  });
  throw new UserError(`${studyFile}: ${missing.length} of ${models.length} model(s) missing (a Hugging Face model folder is needed for each):\n${lines.join('\n')}\n` +
    'Then point each models[].path at the snapshot folder the pull prints (or pass --set models.N.path=DIR). ' +
    'Gated models (Llama, some OLMo and Gemma releases) need the licence accepted on the hub and a token: export HF_TOKEN=hf_... before the pull.');
}

/** A from-scratch model's config.json and the folder its tokenizer comes from. */
function initConfig(m: StudyModel, o: { studyDir: string; suiteDir?: string }): { config: Record<string, unknown>; tokenizerDir: string } {
  const init = m.init!;
  const tokenizerDir = init.tokenizer === 'synthetic' ? o.suiteDir : path.resolve(o.studyDir, init.tokenizer);
  if (!tokenizerDir) throw new UserError(`model "${m.id}": init.tokenizer "synthetic" needs a "synthetic:" section in the study`);
  const vocab = JSON.parse(fs.readFileSync(path.join(tokenizerDir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens?: { id: number }[] };
  const vocabSize = Math.max(...Object.values(vocab.model.vocab), ...(vocab.added_tokens ?? []).map((t) => t.id)) + 1;
  const shape = { layers: init.layers, hidden: init.hidden, heads: init.heads };
  return { config: init.family === 'gpt2' ? tinyGpt2Config(vocabSize, shape) : tinyLlamaConfig(vocabSize, shape), tokenizerDir };
}

/** A from-scratch model too large to allocate is refused before any run starts, naming the study's field. */
function checkInitSize(m: StudyModel, index: number, o: { studyDir: string; suiteDir?: string; studyFile: string }): void {
  if (m.init === undefined) return;
  const { config } = initConfig(m, o);
  const field = `${o.studyFile}: models[${index}] "${m.id}" init (layers ${m.init.layers}, hidden ${m.init.hidden}, heads ${m.init.heads})`;
  const family = familyFor(config.model_type, field);
  let problem: string | undefined;
  try {
    problem = modelSizeProblem(family, family.parseConfig(config, field));
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message.startsWith(field) ? err.message : `${field}: ${err.message}`);
    throw err;
  }
  if (problem) throw new UserError(`${field}: ${problem}`);
}

async function resolveModel(run: RunPlan, ctx: RunContext): Promise<string> {
  const m = run.model;
  if (m.path !== undefined) return path.resolve(ctx.studyDir, m.path);
  const dir = path.join(ctx.paths.models, m.id);
  if (fs.existsSync(path.join(dir, 'config.json'))) return dir;
  const { config, tokenizerDir } = initConfig(m, ctx);
  await initModel(config, tokenizerDir, INIT_SEED, dir);
  return dir;
}

/**
 * The store's prompt_variant of a run's reported cell (Prompt-1 at the run's k), as the variants
 * name it; at 0 shots, the variant the report shows by default.
 */
export function reportedVariant(study: Study, settings: StudySettings, shots: number): string {
  if (settings.grid === 'every-k-and-prompt') return `prompt-1/${shots}-shot`;
  const prompts = study.evaluation.prompts;
  return promptVariants(prompts, shots > 0 ? [shots] : undefined).find((v) => v.prompt === 1 && v.shots === shots)?.name
    ?? promptVariants(prompts, shots > 0 ? [shots] : undefined)[0].name;
}
