// The trainer: full fine-tuning and LoRA on the built-in engine, study A's and study B's objectives,
// FTICL, AdamW with schedules, checkpoints with resume; plus initModel for training from scratch.
export { train, trainingSubset, runPieces, type TrainResult } from './trainer.ts';
export type { TrainOptions } from './options.ts';
export { initModel, tinyConfig, tinyGpt2Config, tinyLlamaConfig, type TinyShape } from './init.ts';
export { AdamW, type AdamWOptions } from './adamw.ts';
export { lrMultiplier, warmupStepsOf, SCHEDULES, type ScheduleName } from './schedule.ts';
export {
  FINETUNE_METHODS, HF_LAUNCH_DEFAULTS, INIT_FAMILIES, INIT_SHAPE_DEFAULTS, LORA_DEFAULTS, LORA_OPTIONS, OBJECTIVES, STORED_OBJECTIVE,
  objectiveNamed, TRAINING_BACKENDS, TRAINING_DEFAULTS, TRAINING_OPTIONS,
  HF_LAUNCH_OPTIONS, type Objective, type TrainingOptionSpec,
} from './option-table.ts';
export { checkpointSteps, type CheckpointPolicy } from './policy.ts';
export { encodeForTraining, type TrainSequence } from './sequences.ts';
export { listCheckpoints, checkpointDir, readState, type LogEntry, type TrainerState } from './checkpoints.ts';
export { progressSink, silentProgress, type ProgressSink } from './progress.ts';
export { LoraAdapters, loraTargets, type LoraConfig } from '../engine/index.ts';
export { clipByGlobalNorm } from './clip.ts';
export { optimiserStep, type StepContext, type StepResult } from './step.ts';
