// A bug in a genstudy process (an error no code path catches, thrown from inside tfjs with the
// wasm backend's emscripten handler installed) is reported as one message and its stack frames,
// exit code 1: never Node's dump of the throwing line, which for the minified wasm glue was 39 KB
// of library source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../support/genstudy-process.ts';

test('an uncaught error inside tfjs prints a short report, not the library\'s source', () => {
  const preload = pathToFileURL(path.join(repoRoot, 'test/support/crash-in-timer.mjs')).href;
  // Any command will do (this one fails at once, exit 2): the crash comes from the preloaded timer.
  const r = spawnSync(process.execPath,
    ['--import', preload, path.join(repoRoot, 'bin/genstudy.js'), 'serve', path.join(repoRoot, 'no-such-model'), '--port', '0'],
    { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1, r.stderr.slice(0, 2000));
  assert.match(r.stderr, /^genstudy: internal error \(a bug; please report it with the command that caused it\): Error: /m);
  assert.ok(r.stderr.length < 5000, `short: ${r.stderr.length} characters`);
  assert.ok(r.stderr.split('\n').every((l) => l.length <= 2100), 'no line of library source');
  assert.doesNotMatch(r.stderr, /var Module=|WasmBackendModule/);
});
