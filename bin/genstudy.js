#!/usr/bin/env node
// Runs the compiled CLI (dist/, which `npm ci` builds) when it was built from the sources as they are
// now (bin/dist-freshness.js compares a digest of src/), else the TypeScript sources through tsx: a
// fresh clone needs no step but `npm ci`, and an edit to src/ takes effect at once. dist/ saves the
// transpiling at every start (~0.35 CPU-s of the ~0.75 an analysis of a small table took; docs/analyze.md),
// and its CLI bundled into a few files (scripts/bundle-cli.js) the loading of some 300 module files (0.35-0.42 -> 0.21-0.26 there).
import path from 'node:path';
import { distIsFresh } from './dist-freshness.js';

// `genstudy ... | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const root = path.resolve(import.meta.dirname, '..');
let entry = '../dist/cli-bundle/main.js';
if (!distIsFresh(root)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = '../src/cli/main.ts';
}
const { main, reportFailure } = await import(entry);
// Errors that escape main (a timer, a stream): reported as main reports them, before the wasm
// backend's emscripten handler can rethrow them and Node print its minified source line.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (err) => process.exit(reportFailure(err)));
}
process.exitCode = await main(process.argv.slice(2));
