import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistered, readRegistry, registeredIds, registrySpec } from '../../src/data/registry.ts';
import { hasSharedData, NO_SHARED, sharedData, tempDir, write, userErrorOf } from './helpers.ts';

/** The per-file table of ft-generalisation/SOURCES.md: file -> rows and label counts. */
function sourcesTable(): { file: string; rows: number; labels: Record<string, number> }[] {
  const text = readFileSync(join(sharedData, 'ft-generalisation/SOURCES.md'), 'utf8');
  const section = text.slice(text.indexOf('## Rows and labels per file'));
  const out = [];
  for (const line of section.split('\n')) {
    const m = /^\| ([\w/]+\.json) \| (\d+) \|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    const labels: Record<string, number> = {};
    for (const part of m[3].split(',').map((s) => s.trim()).filter(Boolean)) {
      const [label, count] = part.split(/\s+/);
      labels[label] = Number(count);
    }
    out.push({ file: m[1], rows: Number(m[2]), labels });
  }
  return out;
}

/** The registry id whose local file is this ft-generalisation file. */
function idFor(file: string): string {
  const wanted = `ft-generalisation/${file}`;
  for (const [set, entry] of Object.entries(readRegistry().sets)) {
    for (const [split, source] of Object.entries(entry.splits)) if (source.local?.path === wanted) return `${set}:${split}`;
  }
  throw new Error(`no registry entry for ${wanted}`);
}

test('all 50 files of ft-generalisation load with the rows and labels of its SOURCES.md', async (t) => {
  if (!hasSharedData) return t.skip(NO_SHARED);
  const table = sourcesTable();
  assert.equal(table.length, 50);
  for (const row of table) {
    const id = idFor(row.file);
    const got = await loadRegistered(id, { dataDir: sharedData });
    assert.equal(got.rowsRead, row.rows, `${row.file}: rows`);
    // Labels as the table counts them: the kept examples plus the rows dropped for their label ("-").
    const counts: Record<string, number> = {};
    for (const e of got.examples) if (e.label !== undefined) counts[e.label] = (counts[e.label] ?? 0) + 1;
    for (const d of got.dropped) {
      const m = /^label "(.*)" is in dropLabels$/.exec(d.reason);
      assert.ok(m, `${row.file}: unexpected drop "${d.reason}"`);
      counts[m[1]] = d.count;
    }
    assert.deepEqual(counts, row.labels, `${row.file}: labels`);
    assert.equal(got.examples.length + got.dropped.reduce((s, d) => s + d.count, 0), row.rows);
    if (got.task === 'generate') assert.ok(got.examples.every((e) => typeof e.target === 'string' && e.target.length > 0), `${row.file}: targets`);
  }
});

test("study A's RTE and WNLI (GLUE TSV) load with the binary maps", async (t) => {
  if (!hasSharedData) return t.skip(NO_SHARED);
  const count = (examples: { label?: string }[]) => {
    const c: Record<string, number> = {};
    for (const e of examples) c[e.label!] = (c[e.label!] ?? 0) + 1;
    return c;
  };
  const rte = await loadRegistered('study-a/rte:train', { dataDir: sharedData, source: 'local' });
  assert.deepEqual(count(rte.examples), { No: 1241, Yes: 1249 });
  assert.deepEqual(rte.dropped, []);
  assert.deepEqual(rte.examples[1], {
    id: '1',
    fields: {
      premise: 'A place of sorrow, after Pope John Paul II died, became a place of celebration, as Roman Catholic faithful gathered in downtown ' +
        'Chicago to mark the installation of new Pope Benedict XVI.',
      hypothesis: 'Pope Benedict XVI is the new leader of the Roman Catholic Church.',
    },
    label: 'Yes',
  });
  const wnli = await loadRegistered('study-a/wnli:train', { dataDir: sharedData, source: 'local' });
  assert.deepEqual(count(wnli.examples), { Yes: 312, No: 323 });
  assert.equal(wnli.examples.length, 635);
});

test('the registry names the eight study A test sets with their splits and binary maps', () => {
  const expected: Record<string, [string, Record<string, string>, string[]]> = {
    'study-a/snli:test': ['stanfordnlp/snli', { entailment: 'Yes', contradiction: 'No' }, ['neutral', '-1']],
    'study-a/mnli:validation_matched': ['nyu-mll/glue', { entailment: 'Yes', contradiction: 'No' }, ['neutral']],
    'study-a/anli:test_r3': ['facebook/anli', { entailment: 'Yes', contradiction: 'No' }, ['neutral']],
    'study-a/hans:validation': ['jhu-cogsci/hans', { entailment: 'Yes', 'non-entailment': 'No' }, []],
    'study-a/scitail:test': ['allenai/scitail', { entails: 'Yes', neutral: 'No' }, []],
    'study-a/rte:train': ['nyu-mll/glue', { entailment: 'Yes', not_entailment: 'No' }, []],
    'study-a/wnli:train': ['nyu-mll/glue', { '1': 'Yes', '0': 'No' }, []],
    'study-a/paws:test': ['google-research-datasets/paws', { '1': 'Yes', '0': 'No' }, []],
  };
  for (const [id, [repo, labels, drop]] of Object.entries(expected)) {
    const { spec } = registrySpec(id, { source: 'hub' });
    assert.equal(spec.hub?.repo, repo, id);
    assert.deepEqual(spec.labels, labels, id);
    assert.deepEqual(spec.dropLabels ?? [], drop, id);
    assert.deepEqual(Object.keys(spec.fields ?? {}).sort(), ['hypothesis', 'premise'], id);
  }
  // Training sets for study A.
  assert.equal(registrySpec('study-a/mnli:train', { source: 'hub' }).spec.hub?.file, 'mnli/train-00000-of-00001.parquet');
  assert.equal(registrySpec('study-a/snli:train', { source: 'hub' }).spec.hub?.file, 'plain_text/train-00000-of-00001.parquet');
  // Every id in the registry gives a valid spec from each of its sources.
  for (const id of registeredIds()) {
    const [set, split] = id.split(':');
    const entry = readRegistry().sets[set].splits[split];
    if (entry.hub) registrySpec(id, { source: 'hub' });
    if (entry.local) assert.equal(registrySpec(id, { source: 'local', dataDir: '/data', mustExist: false }).spec.path, entry.local.path, id);
  }
});

test('registry errors: unknown set, unknown split, missing file, no data folder', async (t) => {
  assert.throws(() => registrySpec('study-b/sentiment/amazn:test'), /unknown data set "study-b\/sentiment\/amazn:test"/);
  assert.throws(() => registrySpec('study-b/sentiment/amazon:dev'),
    /has no split "dev"; expected one of "train-2000", "train-4000", "train-6000", "test", "few-shot"/);
  const dir = tempDir(t);
  assert.throws(
    () => registrySpec('study-b/sentiment/amazon:test', { dataDir: dir }),
    new RegExp(`study-b/sentiment/amazon:test": ${dir}/ft-generalisation/sentiment/amazon_test_500.json not found`),
  );
  // A registry entry plus a local folder is enough: a folder with just that one file.
  write(dir, 'ft-generalisation/sentiment/amazon_test_500.json',
    JSON.stringify([{ idx: 0, input: 'great', output: 'positive' }, { idx: 1, input: 'bad', output: 'awful' }]));
  const msg = await userErrorOf(loadRegistered('study-b/sentiment/amazon:test', { dataDir: dir }));
  assert.match(msg, /amazon_test_500\.json:1, field "output": unknown label "awful"/);
});
