// `genstudy serve` as a process: names that come from files and clients (the model's name, the
// --lora-root folders, adapter paths in logged errors) reach the terminal with their control
// characters escaped, not obeyed. The child is spawned here rather than through
// test/engine/remote/serve-process.ts because this test reads everything it wrote, stderr included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../evaluate/helpers.ts';
import { writeTinyLlama } from '../engine/remote/tiny-llama.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('names from files and clients are printed with their escape sequences escaped', async () => {
  const dir = tempDir();
  const modelDir = path.join(dir, 'llama');
  // A folder name that would clear the screen, and one that would retitle the terminal.
  const root = path.join(dir, 'adapters\x1b[2J');
  await writeTinyLlama(modelDir, root, { a: 1 });
  const broken = path.join(root, 'broken\x1b]0;owned\x07');
  fs.mkdirSync(broken);
  fs.writeFileSync(path.join(broken, 'adapter_config.json'), '{"r": "two"}');
  fs.copyFileSync(path.join(root, 'a', 'adapter_model.safetensors'), path.join(broken, 'adapter_model.safetensors'));

  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/genstudy.js'), 'serve', modelDir, '--port', '0', '--mimic', 'vllm',
    '--lora-root', root, '--model-name', 'tiny\x1b[31m'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`genstudy serve exited (${code}): ${out}${err}`)));
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out);
        if (m) resolve(m[1]);
      });
    });
    // vLLM answers a failed load 500, which serve logs with the adapter's path.
    const res = await fetch(`${url}/v1/load_lora_adapter`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lora_name: 'b', lora_path: broken }) });
    assert.equal(res.status, 500);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  const printed = out + err;
  // eslint-disable-next-line no-control-regex -- control characters are what must not be printed
  assert.doesNotMatch(printed, /[\x07\x1b]/, JSON.stringify(printed));
  assert.ok(out.includes('model "tiny\\x1b[31m"'), out);
  assert.ok(err.includes('adapters\\x1b[2J'), err);
  assert.ok(err.includes('broken\\x1b]0;owned\\x07'), err);
});
