// The `genstudy data` commands, run as a user runs them: the real bin in a child process for the
// first download, the other calls through the data command's parser in this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { FakeHub, sha256 } from './fake-hub.ts';
import { Command } from 'commander';
import { registerData } from '../../src/cli/data.ts';
import { UserError } from '../../src/errors.ts';
import { hasSharedData, NO_SHARED, repoRoot, sharedData, tempDir, write } from './helpers.ts';

function genstudy(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    execFile(process.execPath, [join(repoRoot, 'bin/genstudy.js'), ...args],
      { cwd: repoRoot, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      ok({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * The data commands in this process (spawning the bin costs seconds per call), with their output
 * captured through registerData's io, and errors handled as main() handles them.
 */
async function inProcess(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const io = { out: { write: (t: string) => (out.stdout += t) }, err: { write: (t: string) => (out.stderr += t) } };
  const program = new Command('genstudy').exitOverride().configureOutput({ writeOut: io.out.write, writeErr: io.err.write });
  registerData(program, io);
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    await program.parseAsync(args, { from: 'user' });
    return { code: 0, ...out };
  } catch (err) {
    if (err instanceof UserError) {
      io.err.write(`genstudy: ${err.message}\n`);
      return { code: 2, ...out };
    }
    throw err;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test('data inspect: a registry id prints counts, labels, drops and the study prompt', async (t) => {
  if (!hasSharedData) return t.skip(NO_SHARED);
  const r = await inProcess(['data', 'inspect', 'study-b/inference/multinli2:test', '--data-dir', sharedData, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  assert.equal(got.rowsRead, 500);
  assert.equal(got.examples, 484);
  assert.deepEqual(got.labels, { contradiction: 167, entailment: 170, neutral: 147 });
  assert.deepEqual(got.dropped, [{ reason: 'label "-" is in dropLabels', count: 16 }]);
  assert.equal(got.template, 'study-b/prompt-1/inference');
  assert.equal(got.prompt, `### Input_1:\n${got.example.fields.input_1}\n### Input_2:\n${got.example.fields.input_2}\n### Inference:`);

  const text = await inProcess(['data', 'inspect', 'study-a/wnli:train', '--data-dir', sharedData]);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(
    text.stdout.includes(['rows read  635', 'examples   635', 'labels', '  No                   323   50.9%', '  Yes                  312   49.1%',
      'dropped    none', ''].join('\n')),
    text.stdout,
  );
  assert.match(text.stdout, new RegExp(/--- prompt \(study-a\/pattern\) ---\nI stuck a pin through a carrot\. When I pulled the pin out, /.source +
    /it had a hole\.Question: The carrot had a hole\. Yes or No\?\n--- end of prompt ---\nlabel: "Yes"/.source));
});

test('data inspect: a spec file, a bare data file, and clear errors', async (t) => {
  const dir = tempDir(t);
  write(dir, 'rows.csv', 'id,text,y\n1,good,pos\n2,bad,neg\n3,meh,???\n');
  const spec = write(dir, 'spec.yaml', 'path: rows.csv\nid: id\nlabel: y\nlabels: {pos: positive, neg: negative}\nunknownLabels: drop\n');
  const r = await inProcess(['data', 'inspect', spec, '--template', 'Review: {text}\nSentiment:', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  assert.deepEqual([got.examples, got.labels, got.prompt], [2, { negative: 1, positive: 1 }, 'Review: good\nSentiment:']);
  assert.deepEqual(got.dropped, [{ reason: 'label "???" is not in labels (unknownLabels: drop)', count: 1 }]);

  const bare = await inProcess(['data', 'inspect', join(dir, 'rows.csv'), '--label', 'y']);
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /examples   3\n/);
  assert.match(bare.stdout, /no study preset for this data set/);

  const bad = write(dir, 'bad.yaml', 'path: rows.csv\nlabel: y\nlabels: {pos: positive}\n');
  const e1 = await inProcess(['data', 'inspect', bad]);
  assert.equal(e1.code, 2);
  assert.equal(e1.stderr, `genstudy: ${join(dir, 'rows.csv')}:3, field "y": unknown label "neg"; ` +
    'expected one of "pos" (add it to "labels" or "dropLabels", or set unknownLabels: drop)\n');
  const e2 = await inProcess(['data', 'inspect', 'no-such-thing']);
  assert.equal(e2.code, 2);
  assert.match(e2.stderr, /"no-such-thing" is neither a registry id \(see genstudy data list\) nor an existing file/);
  const e3 = await inProcess(['data', 'inspect', 'study-b/sentiment/amazon:test', '--data-dir', dir]);
  assert.equal(e3.code, 2);
  assert.match(e3.stderr, /amazon_test_500\.json not found \(data folder/);
  // A data folder that does not exist is named, not worked around by a hub download that blames the network.
  const e4 = await inProcess(['data', 'inspect', 'study-a/rte:train', '--data-dir', join(dir, 'nonexistent')]);
  assert.equal(e4.code, 2);
  assert.equal(e4.stderr, `genstudy: --data-dir ${join(dir, 'nonexistent')}: no such folder\n`);
  const e5 = await inProcess(['data', 'inspect', 'study-a/rte:train', '--data-dir', join(dir, 'rows.csv')]);
  assert.equal(e5.stderr, `genstudy: --data-dir ${join(dir, 'rows.csv')}: not a folder\n`);
});

test('data pull: downloads into HF_HUB_CACHE, then answers offline from it', async (t) => {
  const content = Buffer.from('a,b\n1,2\n'.repeat(1000));
  const server = await new FakeHub([
    { type: 'dataset', name: 'me/toy', commit: 'a'.repeat(40), refs: { main: 'a'.repeat(40) }, files: [
      { path: 'data/train.csv', content, lfs: true },
      { path: 'notes.txt', content: Buffer.from('hi\n'), lfs: false },
    ] },
  ]).start();
  t.after(() => server.close());
  const cache = tempDir(t);
  const env = { HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '' };
  const r = await genstudy(['data', 'pull', 'me/toy', '--include', 'data/*', '--endpoint', server.url], env);
  assert.equal(r.code, 0, r.stderr);
  const snap = join(cache, 'datasets--me--toy', 'snapshots', 'a'.repeat(40));
  assert.equal(r.stdout, `downloaded   7.8 KiB  data/train.csv\ndataset me/toy@main = ${'a'.repeat(40)}\n${snap}\n`);
  assert.ok(existsSync(join(cache, 'datasets--me--toy', 'blobs', sha256(content))));
  await server.close();
  const off = await inProcess(['data', 'pull', 'me/toy', '--endpoint', server.url], { ...env, HF_HUB_OFFLINE: '1' });
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /^cached {5}.*data\/train\.csv\ndataset me\/toy@main = a{40} \(from the cache\)\n/);
  const missing = await inProcess(['data', 'pull', 'me/other', '--offline'], env);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /dataset me\/other@main: offline mode \(HF_HUB_OFFLINE\), and the revision is not in the cache/);
});
