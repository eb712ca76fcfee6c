// Writes the synthetic suite to a folder: node --import tsx bench/synth-write-suite.ts <dir> [seed] [trainSize] [testSize]
import { generateSuite, writeSuite } from '../src/synth/index.ts';

const [dir, seed = '1', trainSize = '4000', testSize = '500'] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: synth-write-suite.ts <dir> [seed] [trainSize] [testSize]\n');
  process.exit(2);
}
const files = await writeSuite(dir, generateSuite({ seed: Number(seed), trainSize: Number(trainSize), testSize: Number(testSize) }));
process.stdout.write(`${files.length} files in ${dir}\n`);
