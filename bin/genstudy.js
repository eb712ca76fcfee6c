#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

// `genstudy ... | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

register();
const { main, reportFailure } = await import('../src/cli/main.ts');
// Errors that escape main (a timer, a stream): reported as main reports them, before the wasm
// backend's emscripten handler can rethrow them and Node print its minified source line.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (err) => process.exit(reportFailure(err)));
}
process.exitCode = await main(process.argv.slice(2));
