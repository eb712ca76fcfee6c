// The data module: readers, data set specs and loading, the registry of known sets, hub downloads.
export { readRows, formatOf, rowWhere, type Format, type ReadOptions, type SourceRow } from './readers/index.ts';
export { DataSetSpecSchema, parseDataSetSpec, taskKindOf, type DataSetSpec, type DataSetSpecInput, type HubFile, type Sample } from './spec.ts';
export { loadDataSet, readSpecFile, readSpecOrDataFile, type LoadOptions, type LoadedDataSet } from './load.ts';
export { contentHash } from './hash.ts';
export { loadExamples, loadNamedDataSet, type NamedDataSet, type NamedDataSetOptions } from './load-examples.ts';
export {
  readRegistry,
  registeredIds,
  isRegistryId,
  registrySpec,
  DATA_SOURCES,
  type DataSource,
  loadRegistered,
  defaultDataDir,
  REGISTRY_FILE,
  type Registry,
  type RegistrySet,
  type RegistryOptions,
  type RegisteredSpec,
} from './registry.ts';
export {
  pullRepo,
  resolveHubFile,
  defaultCacheDir,
  repoFolderName,
  REPO_TYPES,
  DEFAULT_ENDPOINT,
  type HubOptions,
  type RepoRef,
  type RepoType,
  type PullRequest,
  type PullResult,
  type PulledFile,
  type HubFileRequest,
} from './hub.ts';
export { keepingBugRows, replayedBugOf, type ReplayedBug } from './replayed-bug.ts';
