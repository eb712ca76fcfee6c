// Failures the user fixes are reported as such: exit 2 and one line saying what to change, never
// "internal error" with a stack trace (exit 1 is for genstudy's own bugs). A full disk is made with a
// small tmpfs mounted in a private mount namespace (root and unshare needed; skipped otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulateScores } from '../support/simulated-scores.ts';
// The commands run through main() in this process (its exit code is the bin's: test/smoke/cli.test.ts); the full disk's run
// in a child, in a mount namespace of its own.
import { genstudy, repoRoot } from '../support/genstudy-in-process.ts';
import { writeCsv } from '../analyze/helpers.ts';

function assertOneLine(r: { code: number; stderr: string }, expected: RegExp, what: string): void {
  assert.equal(r.code, 2, `${what}: ${r.stderr}`);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('genstudy: ') && !/^genstudy: (train|step|\d)/.test(l));
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, what);
  assert.match(lines.at(-1) ?? '', expected, what);
}

test('analyze --out-file into a missing folder or onto a folder: exit 2, one line, before any analysis', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-out-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const scores = path.join(dir, 'scores.csv');
  writeCsv(scores, simulateScores({ seed: 7, runs: 2, steps: 20 }));
  const missing = await genstudy(['analyze', scores, '--control', 'in-domain', '--out-file', path.join(dir, 'no-such-folder', 'a.txt')]);
  assertOneLine({ code: missing.code, stderr: missing.stderr },
    /^genstudy: --out-file .*no-such-folder\/a\.txt: the folder .*no-such-folder does not exist; create it or write elsewhere$/, 'missing folder');
  const ontoFolder = await genstudy(['analyze', scores, '--control', 'in-domain', '--out-file', dir]);
  assertOneLine({ code: ontoFolder.code, stderr: ontoFolder.stderr }, /^genstudy: --out-file .*: is a folder; give a file name/, 'onto a folder');
  // the former spelling, --out, still names the file, with a note
  const former = await genstudy(['analyze', scores, '--control', 'in-domain', '--out', path.join(dir, 'a.json'), '--format', 'json',
    '--calibration', '0', '--no-robustness']);
  assert.equal(former.code, 0, former.stderr);
  assert.match(former.stderr, /note: analyze's --out is now --out-file \(--out names a folder in the other commands\); it still works/);
  assert.ok(fs.existsSync(path.join(dir, 'a.json')));
  const both = await genstudy(['analyze', scores, '--control', 'in-domain', '--out', 'a.json', '--out-file', 'b.json']);
  assertOneLine({ code: both.code, stderr: both.stderr }, /--out and --out-file name the same file: give --out-file/, 'both');
});

test('train --out naming a file (or a path through one): exit 2, one line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-out-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x');
  for (const out of [file, path.join(file, 'sub')]) {
    const r = await genstudy(['train', '--data', 'synthetic', '--synthetic-size', '16', '--init', 'gpt2', '--init-hidden', '16', '--init-layers', '1',
      '--lr', '1e-3', '--steps', '1', '--batch-size', '4', '--out', out]);
    assertOneLine(r, /^genstudy: a file stands where a folder is needed \(.*a-file.*\): choose another folder/, out);
  }
});

/** Why a small full file system cannot be mounted here, or undefined when it can. */
function noTmpfs(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux to mount a small tmpfs';
  const probe = spawnSync('unshare',
    ['-m', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d"; s=$?; rmdir "$d"; exit $s'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined
    : `unshare -m with mount -t tmpfs unavailable (${(probe.stderr || String(probe.error)).trim().split('\n')[0]})`;
}

test('a full disk (checkpoints: ENOSPC; the store: SQLITE_FULL) is exit 2 with one line, not a bug report', { skip: noTmpfs() ?? false }, () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-full-'));
  try {
    // A 200 KB tmpfs: first the checkpoints go there; then it is nearly filled and the store goes there.
    const train = '"$NODE" "$BIN" train --data synthetic --synthetic-size 16 --init gpt2 --init-hidden 16 --init-layers 1 --lr 1e-3 ' +
      '--steps 2 --batch-size 4';
    const script = `set -u; m=$(mktemp -d); mount -t tmpfs -o size=200k tmpfs "$m" || exit 99
      ${train} --out "$m/out" 2> "$O/checkpoints.err"; echo $? > "$O/checkpoints.code"
      rm -rf "$m"/*; head -c 150000 /dev/zero > "$m/filler"
      ${train} --out "$O/out" --store "$m/s.sqlite" 2> "$O/store.err"; echo $? > "$O/store.code"
      umount "$m"; rmdir "$m"`;
    const r = spawnSync('unshare', ['-m', 'bash', '-c', script], {
      cwd: repoRoot, encoding: 'utf8', timeout: 300_000,
      env: { ...process.env, NODE: process.execPath, BIN: path.join(repoRoot, 'bin/genstudy.js'), O: outside },
    });
    assert.equal(r.status, 0, r.stderr);
    for (const which of ['checkpoints', 'store']) {
      const code = Number(fs.readFileSync(path.join(outside, `${which}.code`), 'utf8'));
      const stderr = fs.readFileSync(path.join(outside, `${which}.err`), 'utf8');
      assertOneLine({ code, stderr }, /^genstudy: no space left on the device.*: free some space or choose a folder on another disk/, which);
    }
    assert.match(fs.readFileSync(path.join(outside, 'store.err'), 'utf8'), /\(the results store\)/);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});
