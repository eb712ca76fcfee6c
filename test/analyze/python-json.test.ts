// Score files as Python writes them: every file a folder reader is pointed at is read or
// named. A results file cut short is an error at its line; NaN, Infinity and 1e999 (json.dump's
// defaults) are missing values with a note saying where; a null log_history entry is skipped with a
// note. Real files (Pythia's published 0.3 output, the 0.4 and Trainer fixtures) edited as a crash or
// an fp16 run would leave them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { UserError } from '../../src/errors.ts';
import { parsePythonJson } from '../../src/json-text.ts';
import { readLogHistory } from '../../src/train/hf/log-history.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot, tempDir } from './helpers.ts';

const PYTHIA = join(repoRoot, 'examples/pythia-evals/pythia-160m/zero-shot');
const PYTHIA_FILES = ['160m_step0.json', '160m_step1000.json', '160m_step13000.json', '160m_step143000.json'];
const LM_EVAL_04 = join(repoRoot, 'test/analyze/fixtures/lm-eval-04');
const TRAINER_RUNS = join(repoRoot, 'test/analyze/fixtures/trainer-runs');

/** A copy of four of Pythia's 0.3 files in `dir`/zero-shot; returns that folder. */
function pythiaCopy(dir: string): string {
  const folder = join(dir, 'zero-shot');
  mkdirSync(folder, { recursive: true });
  for (const f of PYTHIA_FILES) cpSync(join(PYTHIA, f), join(folder, f));
  return folder;
}

/** Rewrites `file`, replacing the first match of `from` (which must be there). */
function edit(file: string, from: RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.match(text, from, `${file} holds ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** The 1-based line of the first match of `pattern` in `file`. */
function lineOf(file: string, pattern: RegExp): number {
  return readFileSync(file, 'utf8').split('\n').findIndex((l) => pattern.test(l)) + 1;
}

test('a 0.3 results file cut short is an error naming the file, the line and the field, not a missing checkpoint', async (t) => {
  const folder = pythiaCopy(tempDir(t));
  const last = join(folder, '160m_step143000.json');
  const text = readFileSync(last, 'utf8');
  // cut between two fields of wsc's scores
  const cut = text.indexOf('"acc_stderr"', text.indexOf('"wsc"'));
  writeFileSync(last, text.slice(0, cut));
  const line = text.slice(0, cut).split('\n').length;
  await assert.rejects(readScoreInput(folder), (e: Error) => e instanceof UserError && e.file === last && e.line === line &&
    e.field === 'results.wsc' && e.message === `${last}:${line}: invalid JSON: the file ends inside field "results.wsc" (cut short?)`);

  const r = await genstudy(['analyze', folder, '--control', 'lambada_openai']);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.ok(r.stderr.includes(`${last}:${line}: invalid JSON: the file ends inside field "results.wsc"`), r.stderr);
});

test('a NaN stderr in 0.3 output keeps its score, without a standard error, and the note names the file, line and field', async (t) => {
  const folder = pythiaCopy(tempDir(t));
  const file = join(folder, '160m_step143000.json');
  edit(file, /("wsc": \{\s*"acc": [0-9.]+,\s*"acc_stderr": )[0-9.e-]+/, '$1NaN');
  const line = lineOf(file, /"acc_stderr": NaN/);
  const reading = await readScoreInput(folder);
  assert.equal(new Set(reading.rows.map((r) => r.step)).size, 4, 'no checkpoint lost');
  const wsc = reading.rows.find((r) => r.step === 143000 && r.testSet === 'wsc' && r.metric === 'acc');
  assert.ok(wsc, 'the score is read');
  assert.equal(wsc.value, 0.36538461538461536);
  assert.equal(wsc.stderr, undefined);
  assert.ok(reading.notes.includes(`1 NaN / Infinity value(s), as Python's json writes them, read as missing ` +
    `(first at ${file}:${line}, field "results.wsc.acc_stderr")`), reading.notes.join('\n'));
  assert.ok(reading.notes.includes(`1 standard error(s) missing (NaN, Infinity or null): no sampling variance for those scores ` +
    `(first at ${file}, field "results.wsc.acc_stderr")`), reading.notes.join('\n'));
});

test('a NaN stderr in a 0.4 results_*.json is read, not the whole folder rejected', async (t) => {
  const folder = join(tempDir(t), 'lm-eval');
  cpSync(LM_EVAL_04, folder, { recursive: true });
  const sub = join(folder, '__scratch__me__runs__llama-7b-mnli__checkpoint-1750');
  const [name] = readdirSync(sub).filter((f) => /^results_.*\.json$/.test(f));
  const file = join(sub, name);
  edit(file, /"acc_stderr,none": 0\.01/, '"acc_stderr,none": NaN');
  const reading = await readScoreInput(folder);
  const row = reading.rows.find((r) => r.run === '/scratch/me/runs/llama-7b-mnli' && r.step === 1750 && r.metric === 'acc' &&
    r.origin.endsWith('field "results.mnli["acc,none"]"'));
  assert.ok(row, 'the score is read');
  assert.equal(row.stderr, undefined);
  assert.ok(reading.rows.filter((r) => r.step === 1750 && r !== row && r.metric === 'acc').every((r) => r.stderr === 0.01));
  assert.match(reading.notes.join('\n'), new RegExp(`^1 NaN / Infinity value\\(s\\).* read as missing \\(first at ${escape(file)}:${
    lineOf(file, /NaN/)}, field "results\\.mnli\\["acc_stderr,none"\\]"\\)$`, 'm'));
});

test('1e999 (an overflow to Infinity) as a score is a missing score, left out and named, not a series error', async (t) => {
  const folder = pythiaCopy(tempDir(t));
  const file = join(folder, '160m_step1000.json');
  edit(file, /("arc_easy": \{\s*"acc": )[0-9.]+/, '$11e999');
  const line = lineOf(file, /1e999/);
  const reading = await readScoreInput(folder);
  assert.equal(reading.rows.find((r) => r.step === 1000 && r.testSet === 'arc_easy' && r.metric === 'acc'), undefined, 'left out');
  assert.ok(reading.rows.find((r) => r.step === 1000 && r.testSet === 'arc_easy' && r.metric === 'acc_norm'), 'the rest of the task read');
  assert.ok(reading.notes.includes(`1 NaN / Infinity value(s), as Python's json writes them, read as missing ` +
    `(first at ${file}:${line}, field "results.arc_easy.acc")`), reading.notes.join('\n'));
  assert.ok(reading.notes.includes(`1 score(s) missing (NaN, Infinity or null), left out (first at ${file}, field "results.arc_easy.acc")`),
    reading.notes.join('\n'));
});

test('other JSON in an lm-eval folder is named with why it was not read; nothing is skipped silently', async (t) => {
  const folder = pythiaCopy(tempDir(t));
  const lines = join(folder, 'samples.json');
  writeFileSync(lines, '{"doc": 1}\n{"doc": 2}\n');
  const other = join(folder, 'wandb-meta.json');
  writeFileSync(other, '{"host": "node-3"}\n');
  const reading = await readScoreInput(folder);
  assert.equal(new Set(reading.rows.map((r) => r.step)).size, 4);
  assert.ok(reading.notes.includes(`1 JSON file(s) not read: not valid JSON, and not lm-evaluation-harness output by name or first ` +
    `field: ${lines}:2:1: invalid JSON: Unexpected non-whitespace character after JSON`), reading.notes.join('\n'));
  assert.ok(reading.notes.includes(`1 JSON file(s) not read: no "results" object, so not lm-evaluation-harness output: ${other}`),
    reading.notes.join('\n'));
});

test('trainer_state.json: a NaN grad_norm is read with a note, a null log entry is skipped with a note, 1e999 is a missing score', async (t) => {
  const folder = join(tempDir(t), 'runs');
  cpSync(TRAINER_RUNS, folder, { recursive: true });
  // the run's newest state: checkpoint-40's (the final trainer_state.json is at the same step, read only when newer)
  const file = join(folder, 'seed-1', 'checkpoint-40', 'trainer_state.json');
  const before = await readScoreInput(folder);
  edit(file, /"grad_norm": [0-9.]+/, '"grad_norm": NaN');
  edit(file, /"log_history": \[/, '"log_history": [\n    null,');
  edit(file, /"eval_ood_short_accuracy": [0-9.]+/, '"eval_ood_short_accuracy": 1e999');
  const after = await readScoreInput(folder);
  const first = `${file}:${lineOf(file, /"grad_norm": NaN/)}, field "log_history[1].grad_norm"`;
  assert.deepEqual(after.notes, [
    `2 NaN / Infinity value(s), as Python's json writes them, read as missing (first at ${first})`,
    `1 score(s) missing (NaN, Infinity or null), left out (first at ${file}, field "log_history[3].eval_ood_short_accuracy")`,
    `1 log_history entr(ies) null or not an object, skipped (first at ${file}, field "log_history[0]")`,
  ]);
  const missing = before.rows.filter((r) => !after.rows.some((a) => a.run === r.run && a.step === r.step && a.testSet === r.testSet &&
    a.metric === r.metric && a.value === r.value));
  assert.deepEqual(missing.map((r) => `${r.run}@${r.step} ${r.testSet} ${r.metric}`), ['seed-1@5 ood_short accuracy']);
});

test('a trainer_state.json that does not parse is one line naming its line and field', async (t) => {
  const folder = join(tempDir(t), 'runs');
  cpSync(TRAINER_RUNS, folder, { recursive: true });
  const file = join(folder, 'seed-1', 'trainer_state.json');
  edit(file, /"loss": ([0-9.]+),/, '"loss": $1');
  const r = await genstudy(['analyze', folder, '--control', 'in_domain']);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr,
    new RegExp(`${escape(file)}:17:7: invalid JSON in field "log_history\\[0\\]\\.loss": Expected ',' or '}' after property value`));
});

test('the Trainer training log keeps the entries of a run whose grad_norm went NaN', (t) => {
  const run = join(tempDir(t), 'run');
  cpSync(join(TRAINER_RUNS, 'seed-1'), run, { recursive: true });
  const file = join(run, 'trainer_state.json');
  edit(file, /"grad_norm": [0-9.]+/, '"grad_norm": NaN');
  const log = readLogHistory(run);
  assert.ok(log.length > 0);
  assert.ok(Number.isNaN(log[0].gradNorm));
  assert.ok(log.slice(1).every((e) => Number.isFinite(e.gradNorm)));
});

test('parsePythonJson: the tokens Python writes are null with their fields; strings and finite numbers are untouched', () => {
  const text = '{"a": [1, NaN, -Infinity],\n "b c": {"d": Infinity, "s": "NaN Infinity"},\n "e": -1e999, "f": 1e-999, "g": 1e308}';
  const { value, nonFinite } = parsePythonJson(text, 'x.json');
  assert.deepEqual(value, { a: [1, null, null], 'b c': { d: null, s: 'NaN Infinity' }, e: null, f: 0, g: 1e308 });
  assert.deepEqual(nonFinite, [
    { field: 'a[1]', line: 1, token: 'NaN' },
    { field: 'a[2]', line: 1, token: '-Infinity' },
    { field: '["b c"].d', line: 2, token: 'Infinity' },
    { field: 'e', line: 3, token: '-1e999' },
  ]);
  // an error after a NaN still points at the file's own line and column
  assert.throws(() => parsePythonJson('{"a": NaN,\n "b": tru}', 'y.json'),
    (e: Error) => e instanceof UserError && e.message === 'y.json:2:10: invalid JSON in field "b": Unexpected token \'}\'' && e.line === 2);
  assert.throws(() => parsePythonJson('{"a": NaN, "b": Nope}', 'n.json'),
    /^UserError: n\.json:1:17: invalid JSON in field "b": Unexpected token 'N'$/);
  assert.throws(() => parsePythonJson('\n', 'z.json'), /^UserError: z\.json:1: invalid JSON: the file is empty$/);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
