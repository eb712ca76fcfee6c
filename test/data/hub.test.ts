import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { pullRepo, resolveHubFile } from '../../src/data/hub.ts';
import { loadDataSet } from '../../src/data/load.ts';
import { loadRegistered } from '../../src/data/registry.ts';
import { FakeHub, gitSha1, sha256, type FakeRepo } from './fake-hub.ts';
import { repoRoot, tempDir, userErrorOf } from './helpers.ts';

const COMMIT = 'c0ffee'.padEnd(40, '0');
const train = Buffer.from(
  Array.from({ length: 4000 }, (_, k) => JSON.stringify({ text: `row ${k} ${'x'.repeat(k % 50)}`, label: k % 2 ? 'pos' : 'neg' })).join('\n') + '\n');
const readme = Buffer.from('# toy dataset\n');
const big = randomBytes(300_000);
const parquet = Buffer.from(
  parquetWriteBuffer({
    columnData: [
      { name: 'sentence1', data: ['a cat sat', 'the sky', 'water is wet'], type: 'STRING' },
      { name: 'sentence2', data: ['a cat', 'the sky is green', 'water is dry'], type: 'STRING' },
      { name: 'label', data: Int32Array.from([0, 1, 1]), type: 'INT32' },
    ],
  }),
);

function repos(): FakeRepo[] {
  return [
    {
      type: 'dataset',
      name: 'toy/nli',
      commit: COMMIT,
      refs: { main: COMMIT },
      files: [
        { path: 'README.md', content: readme, lfs: false },
        { path: 'data/train.jsonl', content: train, lfs: true },
        { path: 'data/test.parquet', content: parquet, lfs: true },
        { path: 'extra/big.bin', content: big, lfs: true },
      ],
    },
    { type: 'model', name: 'toy/lm', commit: 'b'.repeat(40), refs: { main: 'b'.repeat(40) },
      files: [{ path: 'config.json', content: Buffer.from('{"model_type":"gpt2"}'), lfs: false }] },
  ];
}

async function hub(t: { after: (fn: () => Promise<void>) => void }): Promise<FakeHub> {
  const h = await new FakeHub(repos()).start();
  t.after(() => h.close());
  return h;
}

const repoDir = (cache: string) => join(cache, 'datasets--toy--nli');
const snapshot = (cache: string, path: string) => join(repoDir(cache), 'snapshots', COMMIT, path);

test('pull lays files out like huggingface_hub: blobs by etag, snapshot symlinks, refs', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  const result = await pullRepo({ repo: 'toy/nli', exclude: ['extra/*'] }, { endpoint: server.url, cacheDir: cache, offline: false });
  assert.equal(result.commit, COMMIT);
  assert.deepEqual(result.files.map((f) => [f.path, f.status]),
    [['README.md', 'downloaded'], ['data/train.jsonl', 'downloaded'], ['data/test.parquet', 'downloaded']]);
  assert.equal(readFileSync(join(repoDir(cache), 'refs', 'main'), 'utf8'), COMMIT);
  assert.deepEqual(readdirSync(join(repoDir(cache), 'blobs')).sort(), [gitSha1(readme), sha256(train), sha256(parquet)].sort());
  const link = snapshot(cache, 'data/train.jsonl');
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readlinkSync(link), `../../../blobs/${sha256(train)}`);
  assert.deepEqual(readFileSync(link), train);
  assert.deepEqual(readFileSync(snapshot(cache, 'README.md')), readme);
  assert.ok(!existsSync(snapshot(cache, 'extra/big.bin')));

  // A second pull downloads nothing.
  const before = server.requests.length;
  const again = await pullRepo({ repo: 'toy/nli', exclude: ['extra/*'] }, { endpoint: server.url, cacheDir: cache, offline: false });
  assert.deepEqual(again.files.map((f) => f.status), ['cached', 'cached', 'cached']);
  assert.ok(server.requests.slice(before).every((r) => r.url.startsWith('/api/')));
});

test('--include takes fnmatch patterns ("*" crosses folders, as in huggingface-cli)', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  const result = await pullRepo({ repo: 'toy/nli', include: ['*.parquet'] }, { endpoint: server.url, cacheDir: cache, offline: false });
  assert.deepEqual(result.files.map((f) => f.path), ['data/test.parquet']);
  assert.match(await userErrorOf(pullRepo({ repo: 'toy/nli', include: ['*.csv'] }, { endpoint: server.url, cacheDir: cache, offline: false })),
    /dataset toy\/nli@main: no files matching "\*\.csv" in the repo/);
});

test('a connection broken mid-file is resumed with a Range request', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  server.breakOnce.set('extra/big.bin', 100_000);
  const result = await pullRepo({ repo: 'toy/nli', include: ['extra/*'] }, { endpoint: server.url, cacheDir: cache, offline: false });
  assert.equal(result.files[0].status, 'downloaded');
  const ranges = server.contentRequests('extra/big.bin').map((r) => r.range);
  assert.equal(ranges.length, 2);
  assert.equal(ranges[0], undefined);
  assert.match(ranges[1]!, /^bytes=\d+-$/);
  assert.ok(Number(/\d+/.exec(ranges[1]!)![0]) > 0);
  assert.deepEqual(readFileSync(snapshot(cache, 'extra/big.bin')), big);
});

test('with no retries left, a broken download is a clear error and leaves nothing in snapshots/', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  server.breakOnce.set('extra/big.bin', 50_000);
  const msg = await userErrorOf(
    pullRepo({ repo: 'toy/nli', include: ['extra/*'] }, { endpoint: server.url, cacheDir: cache, offline: false, retries: 0 }));
  assert.match(msg, /toy\/nli:extra\/big\.bin: download broke after \d+ of 300000 bytes .* run the same command again to resume/);
  assert.ok(!existsSync(snapshot(cache, 'extra/big.bin')));
  const incomplete = join(repoDir(cache), 'blobs', `${sha256(big)}.incomplete`);
  assert.ok(statSync(incomplete).size > 0);
  const again = await pullRepo({ repo: 'toy/nli', include: ['extra/*'] }, { endpoint: server.url, cacheDir: cache, offline: false, retries: 0 });
  assert.ok(again.files[0].resumedFrom! > 0);
  assert.deepEqual(readFileSync(snapshot(cache, 'extra/big.bin')), big);
  assert.ok(!existsSync(incomplete));
});

test('a download killed mid-file leaves no half file in snapshots/, and the next pull resumes it', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  server.stall.set('extra/big.bin', 120_000);
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/data/pull-child.ts'), server.url, cache, 'toy/nli'],
    { cwd: repoRoot, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((ok) => child.on('exit', (code, signal) => ok(signal ? null : code)));
  const incomplete = join(repoDir(cache), 'blobs', `${sha256(big)}.incomplete`);
  // Wait until the server has sent its part and the child has written some of it.
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the child never reached the stalled file: ${stderr}`)), 30_000);
    server.once('stalled', () => {
      const poll = setInterval(() => {
        if (existsSync(incomplete) && statSync(incomplete).size > 0) {
          clearInterval(poll);
          clearTimeout(timer);
          ok();
        }
      }, 20);
    });
  });
  child.kill('SIGKILL');
  assert.equal(await exited, null);
  assert.ok(!existsSync(snapshot(cache, 'extra/big.bin')), 'no file in snapshots/ after the kill');
  const partial = statSync(incomplete).size;
  assert.ok(partial > 0 && partial <= 120_000);
  server.stall.clear();
  const result = await pullRepo({ repo: 'toy/nli' }, { endpoint: server.url, cacheDir: cache, offline: false, retries: 0 });
  const bigFile = result.files.find((f) => f.path === 'extra/big.bin')!;
  assert.equal(bigFile.resumedFrom, partial);
  assert.equal(server.contentRequests('extra/big.bin').at(-1)?.range, `bytes=${partial}-`);
  assert.deepEqual(readFileSync(snapshot(cache, 'extra/big.bin')), big);
});

test('wrong bytes from the server: a hash mismatch error, and nothing kept', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  server.corrupt.add('data/train.jsonl');
  const msg = await userErrorOf(
    pullRepo({ repo: 'toy/nli', include: ['data/train.jsonl'] }, { endpoint: server.url, cacheDir: cache, offline: false }));
  assert.match(msg,
    new RegExp(`toy/nli:data/train\\.jsonl: sha256 mismatch: expected ${sha256(train)}, got [0-9a-f]{64}; the downloaded file was deleted`));
  assert.ok(!existsSync(snapshot(cache, 'data/train.jsonl')));
  assert.deepEqual(readdirSync(join(repoDir(cache), 'blobs')), []);
  // Regular (non-LFS) files are checked against their git blob id.
  server.corrupt.add('README.md');
  assert.match(await userErrorOf(pullRepo({ repo: 'toy/nli', include: ['README.md'] }, { endpoint: server.url, cacheDir: cache, offline: false })),
    /README\.md: git blob id mismatch: expected [0-9a-f]{40}/);
  assert.deepEqual(readdirSync(join(repoDir(cache), 'blobs')), []);
});

test('offline: HF_HUB_OFFLINE or an unreachable server resolves from the cache', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  await pullRepo({ repo: 'toy/nli', include: ['data/*'] }, { endpoint: server.url, cacheDir: cache, offline: false });
  const endpoint = server.url;
  await server.close();

  const saved = process.env.HF_HUB_OFFLINE;
  process.env.HF_HUB_OFFLINE = '1';
  try {
    const offline = await pullRepo({ repo: 'toy/nli', include: ['*.jsonl'] }, { endpoint, cacheDir: cache });
    assert.equal(offline.offline, true);
    assert.equal(offline.commit, COMMIT);
    assert.deepEqual(offline.files.map((f) => [f.path, f.size]), [['data/train.jsonl', train.length]]);
  } finally {
    if (saved === undefined) delete process.env.HF_HUB_OFFLINE;
    else process.env.HF_HUB_OFFLINE = saved;
  }

  const notes: string[] = [];
  const fallback = await pullRepo({ repo: 'toy/nli' }, { endpoint, cacheDir: cache, offline: false, log: (m) => notes.push(m) });
  assert.equal(fallback.offline, true);
  assert.deepEqual(fallback.files.map((f) => f.path), ['data/test.parquet', 'data/train.jsonl']);
  assert.match(notes[0], /cannot reach http:\/\/127\.0\.0\.1:\d+ .*using the cached snapshot c0ffee/);

  assert.match(
    await userErrorOf(pullRepo({ repo: 'toy/other' }, { endpoint, cacheDir: cache, offline: true })),
    /dataset toy\/other@main: offline mode \(HF_HUB_OFFLINE\), and the revision is not in the cache .*datasets--toy--other/,
  );
});

test('model repos use models--owner--name and the /{repo}/resolve URL', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  const result = await pullRepo({ repo: 'toy/lm', repoType: 'model' }, { endpoint: server.url, cacheDir: cache, offline: false });
  assert.equal(result.snapshotDir, join(cache, 'models--toy--lm', 'snapshots', 'b'.repeat(40)));
  assert.equal(readFileSync(join(result.snapshotDir, 'config.json'), 'utf8'), '{"model_type":"gpt2"}');
  assert.ok(server.requests.some((r) => r.url === `/toy/lm/resolve/${'b'.repeat(40)}/config.json`));
});

test('a data set spec can name a hub file: downloaded once, then loaded from the cache', async (t) => {
  const server = await hub(t);
  const cache = tempDir(t);
  const spec = {
    hub: { repo: 'toy/nli', file: 'data/test.parquet' },
    fields: { premise: 'sentence1', hypothesis: 'sentence2' },
    label: 'label',
    labelNames: ['entailment', 'not_entailment'],
    labels: { entailment: 'Yes', not_entailment: 'No' },
  };
  const got = await loadDataSet(spec, { hub: { endpoint: server.url, cacheDir: cache, offline: false } });
  assert.equal(got.source, `hf://datasets/toy/nli@${COMMIT}/data/test.parquet`);
  assert.deepEqual(got.examples.map((e) => [e.id, e.fields.premise, e.label]),
    [['0', 'a cat sat', 'Yes'], ['1', 'the sky', 'No'], ['2', 'water is wet', 'No']]);
  assert.deepEqual(server.contentRequests('data/test.parquet').length, 1);
  assert.deepEqual(server.contentRequests('data/train.jsonl').length, 0);

  // Pinned to the commit, the cached file is used without asking the server.
  const before = server.requests.length;
  const pinned = await loadDataSet({ ...spec, hub: { ...spec.hub, revision: COMMIT } },
    { hub: { endpoint: server.url, cacheDir: cache, offline: false } });
  assert.equal(pinned.contentHash, got.contentHash);
  assert.equal(server.requests.length, before);

  const wrong = { ...spec, hub: { ...spec.hub, sha256: '0'.repeat(64) } };
  assert.match(await userErrorOf(loadDataSet(wrong, { hub: { endpoint: server.url, cacheDir: cache, offline: false } })),
    /"data\/test\.parquet" has sha256 [0-9a-f]{64}, the spec expects 0{64}/);
  assert.match(await userErrorOf(resolveHubFile({ repo: 'toy/nli', file: 'nope.csv' }, { endpoint: server.url, cacheDir: cache, offline: false })),
    /no files matching "nope\.csv"/);
  assert.match(await userErrorOf(resolveHubFile({ repo: 'toy/missing', file: 'a.csv' }, { endpoint: server.url, cacheDir: cache, offline: false })),
    /dataset toy\/missing@main: not found at http/);
});

test('registry hub sources: ClassLabel codes named, the pinned hash checked', async (t) => {
  const hansParquet = Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'premise', data: ['The doctor saw the lawyer .', 'The actor paid the judge .'], type: 'STRING' },
        { name: 'hypothesis', data: ['The doctor saw the lawyer .', 'The judge paid the actor .'], type: 'STRING' },
        { name: 'label', data: Int32Array.from([0, 1]), type: 'INT32' },
      ],
    }),
  );
  const hansCommit = '1'.repeat(40);
  const glueCommit = 'bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c';
  const server = await new FakeHub([
    { type: 'dataset', name: 'jhu-cogsci/hans', commit: hansCommit, refs: { 'refs/convert/parquet': hansCommit },
      files: [{ path: 'plain_text/validation/0000.parquet', content: hansParquet, lfs: true }] },
    // Not the real WNLI parquet: the registry's pinned sha256 must reject it.
    { type: 'dataset', name: 'nyu-mll/glue', commit: glueCommit, refs: {},
      files: [{ path: 'wnli/train-00000-of-00001.parquet', content: hansParquet, lfs: true }] },
  ]).start();
  t.after(() => server.close());
  const cache = tempDir(t);
  const hub = { endpoint: server.url, cacheDir: cache, offline: false };
  const hans = await loadRegistered('study-a/hans:validation', { hub });
  assert.deepEqual(hans.examples.map((e) => e.label), ['Yes', 'No']);
  assert.equal(hans.source, `hf://datasets/jhu-cogsci/hans@${hansCommit}/plain_text/validation/0000.parquet`);
  assert.equal(readFileSync(join(cache, 'datasets--jhu-cogsci--hans', 'refs', 'refs', 'convert', 'parquet'), 'utf8'), hansCommit);
  assert.match(
    await userErrorOf(loadRegistered('study-a/wnli:train', { hub, source: 'hub' })),
    /"wnli\/train-00000-of-00001\.parquet" has \d+ bytes, the spec expects 38835/,
  );
});
