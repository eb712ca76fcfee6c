// Builds the library (dist/: JavaScript and type declarations from src/) for `import ... from
// 'genstudy'` in plain Node; the `prepare` script runs it (npm ci, npm pack, npm install <this
// folder>). The CLI does not need it (it runs src/ via tsx).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
// Data files the sources read next to themselves at run time, and plain-JavaScript worker threads
// (src/serve/encode-worker.mjs), which tsc does not emit.
for (const file of fs.readdirSync(path.join(root, 'src'), { recursive: true }).filter((f) => f.endsWith('.json') || f.endsWith('.mjs'))) {
  fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
  fs.copyFileSync(path.join(root, 'src', file), path.join(dist, file));
}
