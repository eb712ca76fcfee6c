// The engine's one way in from outside engine/ (test/design/import-flow.test.ts): the LanguageModel
// interface every stage uses, the Hugging Face formats both engines read (hf/), the built-in
// implementation (builtin/) with what train/ and serve/ build on, and the remote engine (remote/).
export type { LanguageModel, Tokenizer, ScoreRequest, ScoreResult, GenerateRequest, CheckpointRef, ModelHandle, ModelLoader } from '../types.ts';

// Hugging Face formats (hf/)
export { readConfig, readJsonFile } from './hf/checkpoint.ts';
export { readSafetensors, writeSafetensors } from './hf/safetensors.ts';
export { HfTokenizer, loadTokenizer } from './hf/tokenizer.ts';
export { encodePair, encodeFirstToken, type EncodedPair, type LabelTokenRule } from './hf/requests.ts';
export { incompleteReason, incompleteAdapterReason } from './hf/folder-check.ts';
export { identifyCheckpoint, identifyModelFolder, type ModelIdentity } from './model-identity.ts';

// The built-in engine (builtin/)
export { describeModelFolder, loadModel, modelLoads } from './builtin/load.ts';
export { BuiltinModel, type EngineOptions } from './builtin/model.ts';
export { builtinLoader } from './builtin/loader.ts';
export { saveModel } from './builtin/save.ts';
export { scoreTokens, type TokenScores } from './builtin/scoring.ts';
export {
  knownModelTypes, familyFor, FAMILY_NAMES, INIT_FAMILIES, scratchFamily, type FamilyName, type InitFamily,
} from './builtin/registry.ts';
export type { ScratchShape } from './builtin/families/family.ts';
export { modelSizeProblem } from './builtin/model-size.ts';
export { enginePath, engineStarted, initBackend, onEngineStart } from './builtin/backend.ts';
export { lengthSortedBatches, pad, positionsFromMask } from './builtin/batching.ts';
export { cutAtStop, generateBatch } from './builtin/generation.ts';
export { logprobsAtPositions } from './builtin/position-logprobs.ts';

// What train/ builds on: parameters, LoRA, gradients and the native training kernels
export { Params } from './builtin/params.ts';
export { LoraAdapters, loraTargets, defaultLoraTargetsOf, defaultLoraTargetsInWords, type LoraConfig } from './builtin/lora.ts';
export { enableTrainingGradients } from './builtin/autograd/enable.ts';
export { crossEntropySum } from './builtin/autograd/cross-entropy.ts';
export { adamwKernelAvailable, adamwUpdate, adamwUpdateInPlace } from './builtin/simd/adamw-kernel.ts';
export { sumOfSquares, sumOfSquaresAvailable } from './builtin/simd/sum-of-squares-kernel.ts';
export { onTrainingPool } from './builtin/native/pool-choice.ts';

// The remote engine (remote/)
export * from './remote/index.ts';
