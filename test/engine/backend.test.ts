// Backend choice: GENSTUDY_BACKEND overrides; the native path (wasm + onnxruntime's kernels) is the
// default where onnxruntime (through koffi) loads, else wasm (tfjs-node is not installed here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { repoRoot } from './helpers.ts';

const run = promisify(execFile);

async function chosen(env: Record<string, string>): Promise<string> {
  const code = "import('./src/engine/builtin/backend.ts').then((m) => m.initBackend().then((b) => 'backend=' + b + ' path=' + " +
    "m.enginePath())).then((s) => console.log(s), (e) => console.log(e.name + ': ' + e.message))";
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', code], { cwd: repoRoot, env: { ...process.env, ...env } });
  return stdout.trim().split('\n').pop()!;
}

test('GENSTUDY_BACKEND selects the backend; an unknown or unloadable one is a UserError', async () => {
  assert.equal(await chosen({ GENSTUDY_BACKEND: 'cpu' }), 'backend=cpu path=cpu');
  assert.equal(await chosen({ GENSTUDY_BACKEND: 'wasm' }), 'backend=wasm path=wasm');
  assert.match(await chosen({ GENSTUDY_BACKEND: 'gpu' }), /^UserError: GENSTUDY_BACKEND=gpu: expected one of node, native, wasm, cpu/);
  assert.match(await chosen({ GENSTUDY_BACKEND: 'native', GENSTUDY_THREADS: 'two' }),
    /^UserError: GENSTUDY_THREADS=two: expected a positive integer/);
});

test('the default path is native where onnxruntime and koffi load (else wasm, saying why); GENSTUDY_THREADS sets its threads', async (t) => {
  const def = await chosen({ GENSTUDY_BACKEND: '' });
  t.diagnostic(`default: ${def}`);
  let ortLoads = true;
  try {
    const require = createRequire(import.meta.url);
    require('koffi');
    require.resolve('onnxruntime-node/package.json');
  } catch {
    ortLoads = false;
  }
  if (ortLoads) {
    assert.equal(def, 'backend=wasm path=native (onnxruntime kernels, 1 thread; other ops wasm)');
    assert.equal(await chosen({ GENSTUDY_BACKEND: 'native', GENSTUDY_THREADS: '2' }),
      'backend=wasm path=native (onnxruntime kernels, 2 threads; other ops wasm)');
  } else {
    assert.match(def, /^backend=(wasm path=wasm \(native unavailable: .+\)|tensorflow path=tensorflow)$/);
  }
});
