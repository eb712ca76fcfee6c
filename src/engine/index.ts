// The engine: the LanguageModel interface every stage uses, and the built-in implementation.
export type { LanguageModel, Tokenizer, ScoreRequest, ScoreResult, GenerateRequest } from '../types.ts';
export { loadModel } from './builtin/load.ts';
export { BuiltinModel, type EngineOptions } from './builtin/model.ts';
export { initBackend } from './builtin/backend.ts';
