// The evaluation grid (checkpoints x test sets x prompt variants), its cache and its inputs.
export { evaluateGrid, type GridOptions, type GridSummary } from './grid.ts';
export { discoverCheckpoints, checkpointIn, storedCheckpoints, stepOfFolder, refuseTwoFoldersForOneStep, type Discovered,
  type DiscoverOptions } from './checkpoints.ts';
export { checkRunFolder, defaultRunName, runFolderOf, GENERIC_RUN_FOLDER_NAMES } from './run-folder.ts';
export { resolveTestSets, resolveTestSetArg, syntheticArg, type EvalTestSet, type TestSetOptions, type DemonstrationPool } from './test-sets.ts';
export { resolvePreset, resolveTask, type TaskChoice } from './task-option.ts';
export { promptVariants, type PromptVariant } from './variants.ts';
export { planCells, type Cell, type PlanOptions } from './plan.ts';
export { cellOutcome, positiveLabelOf, type CellOutcome, type MetricOptions } from './cell-metrics.ts';
export { cacheKey, requestDigest, CACHE_FORMAT, type EngineMode, type RequestPayload } from './cache-key.ts';
export { progressFor, LogProgress, BarProgress, NO_PROGRESS, type ProgressSink, type ProgressPlan } from './progress.ts';
