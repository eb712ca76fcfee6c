// Builds dist/ (JavaScript and type declarations from src/): the library, for `import ... from
// 'genstudy'` in plain Node, and the CLI's compiled form (bin/genstudy.js runs it while it matches
// src/, bin/dist-freshness.js). The `prepare` script runs it (npm ci, npm pack, npm install <this
// folder>); `npm run build` after editing src/ (until then the CLI runs src/ through tsx).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DIGEST_FILE, sourceDigest } from '../bin/dist-freshness.js';
import { bundleCli } from './bundle-cli.js';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
// Built beside dist/ and renamed into place, so a CLI starting meanwhile finds the old build or none, not half of one.
const building = path.join(root, 'dist.building');
fs.rmSync(building, { recursive: true, force: true });
const before = sourceDigest(root);
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'),
  '--outDir', building], { stdio: 'inherit' });
// Files the sources read next to themselves at run time (data, plain-JavaScript worker threads such as
// src/serve/encode-worker.mjs, the Trainer's runner.py), which tsc does not emit.
for (const file of fs.readdirSync(path.join(root, 'src'), { recursive: true })) {
  const from = path.join(root, 'src', file);
  if (file.endsWith('.ts') || !fs.statSync(from).isFile()) continue;
  fs.mkdirSync(path.dirname(path.join(building, file)), { recursive: true });
  fs.copyFileSync(from, path.join(building, file));
}
// The CLI bundled into a few files (scripts/bundle-cli.js), which the bin runs: after the copies, since it reads them from dist/.
await bundleCli(building);
// A source edited while tsc ran may or may not be in the output: then no digest, and the CLI runs src/.
if (sourceDigest(root) === before) fs.writeFileSync(path.join(building, DIGEST_FILE), `${before}\n`);
else process.stderr.write('build-library: src/ changed during the build; dist/ is not marked as built from it (run the build again)\n');
fs.rmSync(dist, { recursive: true, force: true });
fs.renameSync(building, dist);
