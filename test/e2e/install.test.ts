// The README's way to put `genstudy` on PATH: `npm link` (or `npm install -g .`) from the clone.
// Run into a throw-away npm prefix, offline; then the linked command runs from another folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/genstudy-process.ts';

for (const args of [['link'], ['install', '-g', '.']]) {
  test(`npm ${args.join(' ')} puts a working genstudy on PATH`, (t) => {
    const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
    if (npm.status !== 0) return t.skip('npm is not on PATH');
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-npm-prefix-'));
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-elsewhere-'));
    t.after(() => { fs.rmSync(prefix, { recursive: true, force: true }); fs.rmSync(elsewhere, { recursive: true, force: true }); });
    const env = { ...process.env, NPM_CONFIG_PREFIX: prefix, npm_config_prefix: prefix };
    const linked = spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund'], { cwd: repoRoot, env, encoding: 'utf8' });
    assert.equal(linked.status, 0, linked.stderr);
    const bin = path.join(prefix, 'bin', 'genstudy');
    assert.ok(fs.existsSync(bin), `${bin} exists`);
    const r = spawnSync('genstudy', ['data', 'list'],
      { cwd: elsewhere, env: { ...env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}` }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^study-a\/snli:test /m);
  });
}
