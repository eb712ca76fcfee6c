// Child process for the store-agreement tests: trains a tiny model with a results store (as
// `genstudy train --store` does) and prints the steps of the checkpoints its summary lists, as JSON.
// Usage: node --import tsx store-child.ts <model dir> <out dir> <store file> [no-resume]
import { storeRun } from './store-run.ts';

const [model, outDir, storeFile, mode] = process.argv.slice(2);
process.stdout.write(JSON.stringify(await storeRun(model, outDir, storeFile, mode !== 'no-resume')) + '\n');
