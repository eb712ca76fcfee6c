// The OpenAI-compatible server over the built-in engine (`genstudy serve`); see README.md.
export { startServer, SERVE_DEFAULTS, type ServeOptions, type RunningServer } from './server.ts';
export { CompletionEngine } from './completions.ts';
export { SERVE_PROFILES, type ServeProfile } from './sampling.ts';
export { promptLogprobs, type PositionLogprobs } from './prompt-logprobs.ts';
