// The tasks module: task specs (classify, generate), templates, demonstrations and the studies' presets.
export * from './template.ts';
export * from './task.ts';
export * from './classify.ts';
export * from './generate.ts';
export * from './demonstrations.ts';
export * from './context-whitespace.ts';
export * from './presets.ts';
export * from './protocol.ts';
export * from './task-presets.ts';
export * from './task-file.ts';
