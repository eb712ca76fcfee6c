// The synthetic generalisation suite (see generate.ts for the construction and expected structure).
export * from './lexicon.ts';
export * from './rule.ts';
export * from './design.ts';
export * from './suite.ts';
export * from './generate.ts';
export * from './describe.ts';
export * from './vocabulary.ts';
export * from './tokenizer.ts';
export * from './write.ts';
export * from './design-check.ts';
export * from './artifacts.ts';
export * from './builder.ts';
