// Backend choice: GENSTUDY_BACKEND overrides; wasm is the default here (tfjs-node is not installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from './helpers.ts';

const run = promisify(execFile);

async function chosen(env: Record<string, string>): Promise<string> {
  const code = "import('./src/engine/builtin/backend.ts').then((m) => m.initBackend()).then((b) => console.log('backend=' + b), (e) => console.log(e.name + ': ' + e.message))";
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', code], { cwd: repoRoot, env: { ...process.env, ...env } });
  return stdout.trim().split('\n').pop()!;
}

test('GENSTUDY_BACKEND selects the backend; an unknown or unloadable one is a UserError', async () => {
  assert.equal(await chosen({ GENSTUDY_BACKEND: 'cpu' }), 'backend=cpu');
  assert.match(await chosen({ GENSTUDY_BACKEND: 'gpu' }), /^UserError: GENSTUDY_BACKEND=gpu: expected one of node, wasm, cpu/);
  const def = await chosen({ GENSTUDY_BACKEND: '' });
  assert.ok(def === 'backend=wasm' || def === 'backend=tensorflow', def);
});
