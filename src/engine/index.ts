// The engine: the LanguageModel interface every stage uses, and the built-in implementation.
export type { LanguageModel, Tokenizer, ScoreRequest, ScoreResult, GenerateRequest, CheckpointRef, ModelHandle, ModelLoader } from '../types.ts';
export { loadModel } from './builtin/load.ts';
export { BuiltinModel, type EngineOptions } from './builtin/model.ts';
export { saveModel } from './builtin/save.ts';
export { scoreTokens, type TokenScores } from './builtin/scoring.ts';
export { encodePair, type EncodedPair } from './hf/requests.ts';
export { HfTokenizer, loadTokenizer } from './hf/tokenizer.ts';
export { readSafetensors, writeSafetensors } from './hf/safetensors.ts';
export { knownModelTypes } from './builtin/registry.ts';
export { enginePath, initBackend } from './builtin/backend.ts';
export { builtinLoader } from './builtin/loader.ts';
export { identifyCheckpoint, identifyModelFolder, type ModelIdentity } from './model-identity.ts';
export { incompleteReason, incompleteAdapterReason } from './hf/folder-check.ts';
