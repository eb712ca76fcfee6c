// Output folders appear whole: a report (and analyze's CSV with its companions) killed between its
// writes leaves the previous output as it was, and a finished one leaves no file of an earlier one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeReport } from '../../src/report/index.ts';
import { restoreAsideFolders } from '../../src/atomic-write.ts';
import { UserError } from '../../src/errors.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { genstudyKilledAt } from '../support/killed-at.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { studyAStore, tempDir } from './helpers.ts';

// What these tests check is how the folders are written, not what the analysis finds: no calibration and no robustness table.
const NEITHER = { calibration: 0, robustness: false };
const NEITHER_FLAGS = ['--calibration', '0', '--no-robustness'];

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

/** An earlier report in `out`, with a table the next report does not write. */
async function oldReport(storePath: string, out: string): Promise<Record<string, string>> {
  await writeReport(out, { storePath, title: 'old report', analysis: NEITHER });
  writeFileSync(join(out, 'designed_vs_found.csv'), 'stale\n');
  return snapshot(out);
}

test('a second report into a folder holding a stale table leaves only the new report\'s files', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'report');
  await oldReport(storePath, out);
  const written = await writeReport(out, { storePath, analysis: NEITHER });
  assert.deepEqual(readdirSync(out).sort(), written.files.map((f) => f.slice(out.length + 1)).sort());
  assert.ok(!existsSync(join(out, 'designed_vs_found.csv')), 'the stale table is gone');
  assert.deepEqual(readdirSync(dirname(out)).filter((n) => n.includes('.tmp')), [], 'no temporary or aside folder left');
});

test('a report killed after its tables, before its page, leaves the old report whole', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'report');
  const before = await oldReport(storePath, out);
  const k = await genstudyKilledAt(['report', storePath, '--out', out, '--title', 'new report', ...NEITHER_FLAGS], 'report:tables-written');
  assert.equal(k.signal, 'SIGKILL', k.stderr);
  assert.deepEqual(snapshot(out), before, 'not one file of the new report in the old folder');
  // The next report clears what the killed one left and replaces the folder.
  await writeReport(out, { storePath, title: 'new report', analysis: NEITHER });
  assert.match(readFileSync(join(out, 'report.html'), 'utf8'), /new report/);
  assert.deepEqual(readdirSync(dirname(out)).filter((n) => n.includes('.tmp')), []);
});

test('a report killed with the old folder moved aside: the old one is put back whole, never a mix', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'report');
  const before = await oldReport(storePath, out);
  const k = await genstudyKilledAt(['report', storePath, '--out', out, ...NEITHER_FLAGS], 'report:old-aside');
  assert.equal(k.signal, 'SIGKILL', k.stderr);
  assert.ok(!existsSync(out), 'between the two renames there is no report folder, not half of one');
  restoreAsideFolders(dirname(out));
  assert.deepEqual(snapshot(out), before);
});

test('a report into a folder that holds other files is refused, and the files stay', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'mine');
  mkdirSync(out);
  writeFileSync(join(out, 'notes.txt'), 'mine\n');
  await assert.rejects(writeReport(out, { storePath, analysis: NEITHER }),
    (e: Error) => e instanceof UserError && /mine: not a report folder \(it holds "notes.txt"\)/.test(e.message));
  assert.deepEqual(readdirSync(out), ['notes.txt']);
});

test('analyze --format csv killed before its files are renamed leaves the old CSVs; a finished one removes a stale moderator table', async (t) => {
  const dir = tempDir(t);
  const input = join(dir, 's.csv');
  const rows = simulateScores({ seed: 5, runs: 2, steps: 25 });
  writeFileSync(input, [Object.keys(rows[0]).join(','), ...rows.map((r) => Object.values(r).join(','))].join('\n') + '\n');
  const out = join(dir, 'out.csv');
  const args = ['analyze', input, '--control', 'in-domain', '--format', 'csv', '--out-file', out, '--bootstrap', '0', ...NEITHER_FLAGS];
  const names = ['out.csv', 'out.agreement.csv', 'out.meta.csv', 'out.moderator.csv'];
  for (const n of names) writeFileSync(join(dir, n), `old ${n}\n`);
  const k = await genstudyKilledAt(args, 'out.csv:files-written');
  assert.equal(k.signal, 'SIGKILL', k.stderr);
  for (const n of names) assert.equal(readFileSync(join(dir, n), 'utf8'), `old ${n}\n`, n);
  const r = await genstudy(args);
  assert.equal(r.code, 0, r.stderr);
  for (const n of names.slice(0, 3)) assert.notEqual(readFileSync(join(dir, n), 'utf8'), `old ${n}\n`, n);
  assert.ok(!existsSync(join(dir, 'out.moderator.csv')), 'the moderator table of an earlier analysis is gone');
});
