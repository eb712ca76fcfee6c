// Runs a study: expands the study file into runs; each run trains (or, for a base method, does
// not), its checkpoints are evaluated as they are written, then the analysis and the report
// follow. Everything is resumable: the trainer resumes from its last checkpoint and the
// evaluation cache answers what was already asked, so running a study again does only what is
// missing.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import { expandStudy, selectRuns, type RunPlan } from '../config/expand.ts';
import type { Study } from '../config/schema.ts';
import { studySettings } from '../config/settings.ts';
import { DEFAULT_STORE_FILE, ResultStore } from '../store/result-store.ts';
import type { EvalTestSet, ProgressSink as EvalProgress } from '../evaluate/index.ts';
import type { ModelLoader } from '../types.ts';
import type { ProgressSink as TrainProgress } from '../train/index.ts';
import { modelLoads, onEngineStart, remoteLoader, servedLoader } from '../engine/index.ts';
import { readStoreScores } from '../analyze/read-scores.ts';
import { buildRunSeries } from '../analyze/run-series.ts';
import { attachErrorCovariance } from '../analyze/error-covariance.ts';
import { storeExampleResults } from '../analyze/store-example-results.ts';
import { analyzeOrSkip, type AnalysisResult, type AnalyzeOptions } from '../analyze/analysis.ts';
import { checkModelsPresent, checkStudyInitSizes, modelIdentityWarnings } from './model-preparation.ts';
import { prepareSynthetic, rowNotes, studyTestSets, tagTestSets } from './study-test-sets.ts';
import { executeRun } from './execute-run.ts';
import type { StudyStages } from './study-progress.ts';

import { reportedVariant } from './execute-run.ts';
import { terminalSafe } from '../terminal-safe.ts';

export { reportedVariant };

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
  /**
   * Model work done by this invocation: example answers computed (not from the cache), optimiser
   * steps taken, and models the built-in engine loaded (training and evaluation; 0 when everything
   * was resumed or answered from the store, and then the engine is not started either).
   */
  work: { answersComputed: number; answersCached: number; trainingSteps: number; modelsLoaded: number };
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
  const log = opts.log ?? ((line: string) => process.stderr.write(`${terminalSafe(line)}\n`));
  const paths = studyPaths(study, studyFile, opts.out);
  const studyDir = path.dirname(paths.studyFile);
  const dataDir = study.dataDir === undefined ? undefined : path.resolve(studyDir, study.dataDir);

  checkModelsPresent(study.models, studyDir, paths.studyFile);
  for (const warning of modelIdentityWarnings(study.models, studyDir)) log(`genstudy: warning: ${warning}`);
  const settings = studySettings(study);
  if (study.evaluation.remote && !study.evaluation.serve) {
    const full = study.methods.filter((m) => m.kind !== 'base' && m.finetune === 'full').map((m) => m.name);
    // A server serves one full model, and vLLM does not say which weights: every full checkpoint
    // would be answered by whatever the server loaded. LoRA checkpoints are loaded on it as adapters.
    if (full.length) {
      throw new UserError(`${paths.studyFile}: evaluation.remote evaluates base models and LoRA checkpoints; ` +
        `method(s) ${full.join(', ')} fine-tune fully, ` +
        'and each full checkpoint needs a server of its own: give evaluation.serve (a command genstudy starts on each checkpoint, e.g. ' +
        '"vllm serve {model} --port {port}") instead of evaluation.remote (docs/scale.md)');
    }
  }
  const runs = selectRuns(expandStudy(study), opts.only);
  // A start that fails (a missing data set, a bad control, a model too large) leaves no folder behind that it made.
  // (mkdirSync returns the first folder it had to make, or undefined when there was none.)
  const created = fs.mkdirSync(paths.out, { recursive: true });
  let suiteDir: string | undefined;
  let testSets: EvalTestSet[];
  try {
    suiteDir = await prepareSynthetic(study, paths.synthetic);
    checkStudyInitSizes(study.models, { studyDir, suiteDir, modelsDir: paths.models, studyFile: paths.studyFile });
    testSets = tagTestSets(study, settings, await studyTestSets(study, settings, suiteDir, dataDir, paths.studyFile));
    if (study.evaluation.control !== undefined && !testSets.some((t) => t.id === study.evaluation.control)) {
      throw new UserError(`${paths.studyFile}: evaluation.control "${study.evaluation.control}" is not among the test sets ` +
        `(${testSets.map((t) => t.id).join(', ')})`);
    }
  } catch (err) {
    if (created !== undefined) fs.rmSync(created, { recursive: true, force: true });
    throw err;
  }
  log(`genstudy: study "${study.name}": ${runs.length} run(s), ${testSets.length} test sets; results in ${paths.out}`);
  for (const note of rowNotes(testSets)) log(`genstudy: ${note}`);

  const work = { answersComputed: 0, answersCached: 0, trainingSteps: 0, modelsLoaded: 0 };
  const loadsBefore = modelLoads();
  const e = study.evaluation;
  const served = e.serve
    ? servedLoader({ command: e.serve.command, startupMs: e.serve.startupSeconds * 1000, log: (line) => log(`genstudy: serve: ${line}`) })
    : undefined;
  let loader: ModelLoader | undefined = served;
  try {
    loader ??= e.remote === undefined ? undefined : remoteLoader({
      urls: e.remote.urls, modelName: e.remote.model, retries: e.remote.retries,
      ...(e.remote.timeout === undefined ? {} : { timeoutMs: e.remote.timeout * 1000 }),
      ...(e.remote.startupSeconds === undefined ? {} : { startupMs: e.remote.startupSeconds * 1000 }), identity: e.remote.identity,
    });
  } catch (err) {
    throw err instanceof UserError ? new UserError(`${paths.studyFile}: evaluation.remote: ${err.message}`) : err;
  }
  // One handle on the results store for the whole study: training logs, evaluation, run records
  // and the analysis all go through it.
  const store = ResultStore.open(paths.store);
  // The engine starts on the first model work (a model loaded to train or to answer what the store
  // lacks), not before: a study that finds everything done never starts it.
  const stopEngineNote = onEngineStart((enginePath) => log(`genstudy: engine: ${enginePath}`));
  try {
    try {
      for (const [i, run] of runs.entries()) {
        if (opts.stages) opts.stages.run(i, runs.length, run.id, study.checkpoints);
        else log(`genstudy: run ${i + 1}/${runs.length}: ${run.id}`);
        await executeRun(study, run, {
          studyFile: paths.studyFile, storePath: paths.store, runsDir: paths.runs, modelsDir: paths.models,
          studyDir, dataDir, suiteDir, testSets, settings, log,
          trainProgress: opts.trainProgress, evalProgress: opts.evalProgress, stages: opts.stages, work, loader, store,
        });
      }
    } finally {
      await served?.close();
      stopEngineNote();
      work.modelsLoaded = modelLoads() - loadsBefore;
    }
    return analyseStudy(study, { paths, runs, work, store, log });
  } finally {
    store.close();
  }
}

/** The study's partial correlations over its fine-tuned runs, or why there are none. */
function analyseStudy(
  study: Study, c: { paths: StudyPaths; runs: RunPlan[]; work: StudyResult['work']; store: ResultStore; log: (line: string) => void },
): StudyResult {
  const { paths, runs, work } = c;

  const { metric: _metric, ...options } = study.analysis;
  const analyzeOptions: AnalyzeOptions = { ...options, control: study.evaluation.control ?? '' };
  if (study.evaluation.control === undefined) {
    return { paths, runs, analysis: null, analysisSkipped: 'the study names no evaluation.control, so there are no partial correlations',
      analyzeOptions, work };
  }
  // The cell the report shows (Prompt-1 at 0 shots, as the study's variants name it): one analysis for both.
  const variant = reportedVariant(study, studySettings(study), 0);
  const rows = readStoreScores(c.store, variant).filter((r) => runs.some((p) => p.id === r.run && p.method.kind !== 'base'));
  const series = buildRunSeries(rows, study.analysis.metric);
  const notes = attachErrorCovariance(series, storeExampleResults(c.store, variant),
    { metric: study.analysis.metric, testSets: [study.evaluation.control] });
  for (const note of notes) c.log(`genstudy: note: ${note}`);
  const outcome = analyzeOrSkip(series, analyzeOptions);
  if ('skipped' in outcome) return { paths, runs, analysis: null, analysisSkipped: outcome.skipped, analyzeOptions, work };
  return { paths, runs, analysis: outcome.analysis, analyzeOptions, work };
}
