// The README and docs/run.md run as written: every command line of their command blocks runs, in
// order, in a scratch folder that has the clone's examples/ (study files are named by that path),
// and must exit 0. `genstudy demo` runs once there and every later command reads its output
// (./genstudy-demo), so the rest does no model work. GENSTUDY_DEMO_OUT=<a finished demo's
// folder> copies that output in first, so the demo itself resumes with nothing to do (for a quick
// local run; CI runs the demo for real).
// `genstudy` and `npx genstudy` run this checkout's bin/genstudy.js (putting it on PATH is
// test/e2e/install.test.ts); npm lines are the environment (npm ci), the test suites (npm test,
// npm run test:e2e, which runs this file) or the install test (npm link / npm install -g .), and
// any other npm line fails here until it is handled.
// A synopsis line (with <placeholders> or [--optional] flags) is not a command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', 'docs/run.md'];
// .ci/run runs npm ci, the type check, the linter and both test suites; the CLI smoke tests link the package.
// npm run build: its script runs in npm ci (prepare) and in test/cli/dist-freshness.test.ts
const NPM_COVERED_ELSEWHERE = new Set(
  ['npm ci', 'npm test', 'npm run test:e2e', 'npm run typecheck', 'npm run lint', 'npm run build', 'npm link', 'npm install -g .']);

interface DocCommand { file: string; line: number; text: string }

/** Command lines of a markdown file's command blocks (indented or fenced), `&&` chains split. */
function commandLines(file: string): DocCommand[] {
  const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
  const out: DocCommand[] = [];
  let fenced = false;
  lines.forEach((raw, i) => {
    if (/^\s*```/.test(raw)) { fenced = !fenced; return; }
    const inBlock = fenced || /^ {4}\S/.test(raw);
    if (!inBlock) return;
    const text = raw.trim().replace(/\s+#\s.*$/, '');
    if (!/^(npx genstudy|genstudy|npm)\b/.test(text)) return;
    for (const part of text.split('&&').map((s) => s.trim()).filter(Boolean)) out.push({ file, line: i + 1, text: part });
  });
  return out;
}

const isSynopsis = (text: string) => /<[a-z][^>]*>/i.test(text) || /\s\[--?[a-z]/.test(text);

/** Splits a command line into words the way a POSIX shell does for these lines (quotes, no expansion). */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

test('every command block of README.md and docs/run.md runs as written against the demo\'s output', { timeout: 1_800_000 }, (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-docs-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  fs.symlinkSync(path.join(root, 'examples'), path.join(work, 'examples'));
  const reuse = process.env.GENSTUDY_DEMO_OUT;
  if (reuse) fs.cpSync(reuse, path.join(work, 'genstudy-demo'), { recursive: true });

  const commands = DOCS.flatMap(commandLines);
  assert.ok(commands.some((c) => /genstudy demo$/.test(c.text)), 'the README runs the demo');
  const ran: string[] = [];
  for (const c of commands) {
    const where = `${c.file}:${c.line}: ${c.text}`;
    if (c.text.startsWith('npm')) {
      assert.ok(NPM_COVERED_ELSEWHERE.has(c.text), `${where}: an npm command this test does not know`);
      continue;
    }
    if (isSynopsis(c.text)) continue;
    const args = words(c.text).slice(c.text.startsWith('npx') ? 2 : 1);
    const started = performance.now();
    const r = spawnSync(process.execPath, [path.join(root, 'bin/genstudy.js'), ...args], { cwd: work, encoding: 'utf8', maxBuffer: 64 << 20 });
    t.diagnostic(`${where}: exit ${r.status} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(r.status, 0, `${where}\n${r.stderr.slice(-2000)}`);
    ran.push(c.text);
  }
  // The demo ran first, so the report and analysis every later command reads are there.
  assert.ok(fs.existsSync(path.join(work, 'genstudy-demo', 'report', 'report.html')));
  assert.ok(ran.length >= 3, `ran: ${ran.join(' | ')}`);
});
