// The remote engine: LanguageModel over OpenAI-compatible completions servers (vLLM, genstudy serve).
export { RemoteModel, type RemoteModelOptions } from './model.ts';
export { normaliseBase, RemoteEndpoints, RemoteError, REMOTE_DEFAULTS, type EndpointOptions } from './endpoints.ts';
export { remoteLoader, maxLengthOf, type RemoteLoaderOptions } from './loader.ts';
export { promptScores, choicesOf, type PromptScores } from './responses.ts';
export { servedLoader, type ServedLoaderOptions } from './served-loader.ts';
export { checkServedModel, probeAgainstBuiltin, samePath, PROBE_TOLERANCE, type IdentityCheck, type ServedModel } from './served-identity.ts';
export { GREEDY } from './model.ts';
