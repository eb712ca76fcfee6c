import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { ResultStore, type StoredScore } from '../../src/store/result-store.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/schema.ts';

/** A store at schema version 1 with one score (run r, step 5, test set t, accuracy 0.7). */
function writeVersion1Store(path: string): void {
  const db = new Database(path);
  db.exec(MIGRATIONS[0]);
  db.pragma('user_version = 1');
  db.exec(`INSERT INTO runs (id) VALUES ('r'); INSERT INTO checkpoints (run_id, step) VALUES ('r', 5);
           INSERT INTO test_sets (id) VALUES ('t');
           INSERT INTO scores (checkpoint_id, test_set_id, metric, value, n) VALUES (1, 't', 'accuracy', 0.7, 3);`);
  db.close();
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a new store is at the latest schema version and round-trips runs, scores and predictions', (t) => {
  const path = join(tempDir(t), 'results.sqlite');
  const store = ResultStore.open(path);
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  store.upsertRun({ id: 'opt-mnli', model: 'facebook/opt-2.7b', trainingSet: 'mnli', method: 'lora', seed: 42, attributes: { shots: 128 } });
  store.upsertTestSet({ id: 'rte', contentHash: 'abc', n: 2490 });
  const scores: StoredScore[] = [
    { run: 'opt-mnli', step: 0, testSet: 'rte', metric: 'accuracy', value: 0.5, n: 2490 },
    { run: 'opt-mnli', step: 100, testSet: 'rte', metric: 'accuracy', value: 0.61, n: 2490 },
    { run: 'opt-mnli', step: 100, testSet: 'rte', promptVariant: 'k=2', metric: 'accuracy', value: 0.63, n: 2490 },
  ];
  store.writeScores(scores);
  store.writePredictions(
    [{ run: 'opt-mnli', step: 100, testSet: 'rte', exampleId: '7', prediction: 'Yes', gold: 'No', detail: { logprobs: [-0.1, -2.3] } }]);
  store.close();

  const again = ResultStore.open(path, { readonly: true });
  assert.deepEqual(again.runs()[0].attributes, { shots: 128 });
  assert.equal(again.runs()[0].seed, 42);
  assert.deepEqual(again.scores({ promptVariant: '' }).map((s) => [s.step, s.value]), [[0, 0.5], [100, 0.61]]);
  assert.equal(again.scores().length, 3);
  assert.deepEqual(again.predictions('opt-mnli', 100, 'rte')[0].detail, { logprobs: [-0.1, -2.3] });
  assert.equal(again.testSet('rte')?.contentHash, 'abc');
  again.close();
});

test('writing the same score key again replaces the value instead of duplicating it', (t) => {
  const store = ResultStore.open(join(tempDir(t), 'r.sqlite'));
  store.writeScores([{ run: 'a', step: 1, testSet: 'x', metric: 'accuracy', value: 0.1, n: 10 }]);
  store.writeScores([{ run: 'a', step: 1, testSet: 'x', metric: 'accuracy', value: 0.2, n: 10 }]);
  assert.deepEqual(store.scores().map((s) => s.value), [0.2]);
  store.close();
});

test('a batch with a bad value stores nothing of that batch', (t) => {
  const store = ResultStore.open(join(tempDir(t), 'r.sqlite'));
  store.writeScores([{ run: 'a', step: 1, testSet: 'x', metric: 'accuracy', value: 0.5, n: 10 }]);
  assert.throws(
    () => store.writeScores([
      { run: 'a', step: 2, testSet: 'x', metric: 'accuracy', value: 0.6, n: 10 },
      { run: 'a', step: 3, testSet: 'x', metric: 'accuracy', value: Number.NaN, n: 10 },
    ]),
    /not a finite number/,
  );
  assert.deepEqual(store.scores().map((s) => s.step), [1]);
  assert.deepEqual(store.checkpoints('a').map((c) => c.step), [1]);
  store.close();
});

test('an older database is migrated forward without losing its rows', (t) => {
  const path = join(tempDir(t), 'old.sqlite');
  writeVersion1Store(path);
  const store = ResultStore.open(path);
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(store.scores().map((s) => [s.run, s.step, s.value]), [['r', 5, 0.7]]);
  store.writeTrainingLog([{ run: 'r', step: 5, loss: 1.25, learningRate: 1e-5 }]);
  assert.equal(store.trainingLog('r')[0].loss, 1.25);
  store.close();
});

test('a store from a newer genstudy is refused with a clear message', (t) => {
  const path = join(tempDir(t), 'new.sqlite');
  const db = new Database(path);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  assert.throws(() => ResultStore.open(path), /newer than this genstudy understands/);
});

test('a process killed while writing leaves every batch whole or absent', async (t) => {
  const path = join(tempDir(t), 'killed.sqlite');
  const batchSize = 2000;
  // The child writes batches of `batchSize` rows forever; each batch's rows share one step.
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
    import('${new URL('../../src/store/result-store.ts', import.meta.url).href}').then(({ ResultStore }) => {
      const store = ResultStore.open(${JSON.stringify(path)});
      for (let step = 0; ; step++) {
        const batch = [];
        for (let i = 0; i < ${batchSize}; i++) batch.push({ run: 'r', step, testSet: 't' + i, metric: 'accuracy', value: i / ${batchSize}, n: 1 });
        store.writeScores(batch);
        if (step === 2) process.stdout.write('written\\n');
      }
    });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('written')) resolve(); });
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
  });
  await new Promise((r) => setTimeout(r, 150));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('close', r));

  const store = ResultStore.open(path);
  const perStep = new Map<number, number>();
  for (const s of store.scores()) perStep.set(s.step, (perStep.get(s.step) ?? 0) + 1);
  assert.ok(perStep.size >= 3, `expected at least 3 whole batches, got ${perStep.size}`);
  for (const [step, count] of perStep) assert.equal(count, batchSize, `batch of step ${step} is partial`);
  store.close();
});

test('reading an older store brings it up to date first and loses nothing', (t) => {
  const path = join(tempDir(t), 'v1.sqlite');
  writeVersion1Store(path);
  const store = ResultStore.open(path, { readonly: true });
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(store.scores().map((s) => s.value), [0.7]);
  store.close();
});

test('three processes opening one new store at the same moment all get a migrated store', async (t) => {
  const dir = tempDir(t);
  const trials = 12;
  // Each child opens trial i's store when told "i" on stdin, so the three opens start together.
  const childCode = `
    import('${new URL('../../src/store/result-store.ts', import.meta.url).href}').then(({ ResultStore }) => {
      process.stdout.write('ready\\n');
      let buf = '';
      process.stdin.on('data', (d) => {
        buf += d;
        for (let nl; (nl = buf.indexOf('\\n')) >= 0; buf = buf.slice(nl + 1)) {
          const i = buf.slice(0, nl);
          if (i === 'end') process.exit(0);
          try {
            const store = ResultStore.open(${JSON.stringify(dir)} + '/s' + i + '.sqlite');
            store.upsertRun({ id: 'r' + process.pid });
            store.close();
            process.stdout.write('ok ' + i + '\\n');
          } catch (err) {
            process.stdout.write('failed ' + i + ': ' + err.message.replace(/\\n/g, ' ') + '\\n');
          }
        }
      });
    });`;
  const children = [0, 1, 2].map(() => spawn(process.execPath, ['--import', 'tsx', '-e', childCode], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const lines = children.map(() => [] as string[]);
  const waiters: (() => void)[] = [];
  children.forEach((c, k) => {
    let buf = '';
    c.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl; (nl = buf.indexOf('\n')) >= 0; buf = buf.slice(nl + 1)) {
        lines[k].push(buf.slice(0, nl)); for (const w of waiters.splice(0)) w(); }
    });
  });
  const until = async (ok: () => boolean): Promise<void> => { while (!ok()) await new Promise<void>((r) => waiters.push(r)); };
  try {
    await until(() => lines.every((l) => l.includes('ready')));
    const failures: string[] = [];
    for (let i = 0; i < trials; i++) {
      for (const c of children) c.stdin.write(`${i}\n`);
      await until(() => lines.every((l) => l.some((x) => x.endsWith(` ${i}`) || x.includes(` ${i}: `))));
      failures.push(...lines.flat().filter((x) => x.startsWith(`failed ${i}:`)));
      const store = ResultStore.open(join(dir, `s${i}.sqlite`), { readonly: true });
      assert.equal(store.schemaVersion, SCHEMA_VERSION);
      assert.equal(store.runs().length, 3 - failures.filter((x) => x.startsWith(`failed ${i}:`)).length);
      store.close();
    }
    assert.deepEqual(failures, [], `${failures.length} of ${trials * 3} concurrent opens failed`);
  } finally {
    for (const c of children) c.stdin.end('end\n');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('close', r) : r(null)))));
  }
});

test('a reader closing last leaves no -wal or -shm file beside the store; a read-only open still refuses writes', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'results.sqlite');
  const writer = ResultStore.open(path);
  writer.writeScores([{ run: 'r', step: 1, testSet: 't', metric: 'accuracy', value: 0.5, n: 2 }]);
  const reader = ResultStore.open(path, { readonly: true });
  writer.close();
  assert.equal(reader.scores().length, 1);
  assert.throws(() => reader.upsertRun({ id: 'x' }), /readonly|read-only/i);
  reader.close();
  const again = ResultStore.open(path, { readonly: true });
  assert.equal(again.scores().length, 1);
  again.close();
  assert.deepEqual(readdirSync(dir), ['results.sqlite']);
});
