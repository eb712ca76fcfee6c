// genstudy as a library: what a user composes in their own script. The CLI (src/cli/) is one
// user of these; everything here is also reachable through the folders' own index files.
export type {
  LanguageModel, Tokenizer, ScoreRequest, ScoreResult, GenerateRequest, Example, Score,
  CheckpointRef, ModelHandle, ModelLoader,
} from './types.ts';
export { UserError } from './errors.ts';

// Statistics (pure functions, no I/O).
export * from './stats/index.ts';

// Scores in, per-run partial correlations and the across-run agreement out.
export {
  analyzeRuns, analyzeRun, type AnalyzeInput, type AnalyzeOptions, type AnalysisResult, type RunAnalysis, type PairResult,
} from './analyze/analysis.ts';
export { metaAcrossRuns, type MetaAcrossRuns, type PairMeta } from './analyze/pair-meta.ts';
export { ANALYSIS_OPTIONS, AnalysisOptionsSchema, DEFAULT_OPTIONS, type AnalysisOptions } from './analyze/options.ts';
export { PAIR_VERDICTS, pairVerdict, type PairVerdict } from './analyze/verdict.ts';
export { headlineOf, type Headline } from './analyze/headline.ts';
export { signVerdict, signCountSentence, type SignVerdict } from './analyze/agreement.ts';
export type { RunCalibration } from './analyze/calibration.ts';
export type { Robustness, PairRobustness } from './analyze/robustness.ts';
export { readScores } from './analyze/read-scores.ts';
export { readScoreInput, type ReadScoreOptions } from './analyze/read-scores.ts';
export type { RunNaming } from './analyze/run-names.ts';
export { compareRunNames } from './analyze/run-order.ts';
export type { ScoreReading } from './analyze/score-reading.ts';
export type { ScoreColumns } from './analyze/score-columns.ts';
export { buildRunSeries, type RunSeries, type ScoreRowInput } from './analyze/run-series.ts';
export type { ScoreRow } from './analyze/score-row.ts';

// Models: the built-in engine and OpenAI-compatible servers.
export { loadModel, builtinLoader, saveModel, loadTokenizer, identifyCheckpoint } from './engine/index.ts';
export { remoteLoader, RemoteModel, RemoteError, type RemoteLoaderOptions } from './engine/index.ts';

// Training, evaluation, the store and the report.
export { train, initModel, tinyConfig, tinyGpt2Config, tinyLlamaConfig, type TinyShape, type TrainOptions, type TrainResult } from './train/index.ts';
export { evaluateGrid, discoverCheckpoints, resolveTestSets, promptVariants, type GridOptions, type GridSummary } from './evaluate/index.ts';
export { ResultStore } from './store/result-store.ts';
export { renderReport, writeReport, type ReportInput, type RenderedReport } from './report/index.ts';

// Whole studies from a study file.
export { loadStudyFile, parseStudy } from './config/load.ts';
export type { Study } from './config/schema.ts';
export { runStudy, type RunStudyOptions, type StudyResult } from './pipeline/run-study.ts';
// One training outside a study, as `genstudy train` runs it (through the trainRun a study's runs use).
export { trainRequested, type TrainRequest, type TrainRequestSettings } from './pipeline/train-request.ts';
export type { TrainBackend, TrainRunResult } from './pipeline/train-run.ts';
