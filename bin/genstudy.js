#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

// `genstudy ... | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
