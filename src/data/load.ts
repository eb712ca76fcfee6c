// Loads a data set spec into Examples: read the file (local or from the hub), map every row,
// drop what the spec drops, sample, and hash the result.
import { resolve, dirname, extname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { UserError, where } from '../errors.ts';
import type { Example } from '../types.ts';
import { readRows } from './readers/index.ts';
import { parseDataSetSpec, type DataSetSpec } from './spec.ts';
import { DropCounter, RowMapper } from './map.ts';
import { applySample } from './sample.ts';
import { contentHash } from './hash.ts';
import { resolveHubFile, type HubOptions } from './hub.ts';

export interface LoadOptions {
  /** Folder that relative paths in the spec resolve against. Default: the current folder. */
  baseDir?: string;
  hub?: HubOptions;
  /** Stop after this many examples (a quick look at a large file); the hash covers only those. */
  limit?: number;
}

export interface LoadedDataSet {
  examples: Example[];
  /** Rows left out, by reason, in the order reasons first appeared. */
  dropped: { reason: string; count: number }[];
  /** sha256 over the canonical examples (see hash.ts). */
  contentHash: string;
  /** Where the rows came from: a file path, or hf://datasets/owner/name@commit/file. */
  source: string;
  /** The local file read (for hub sources, the file in the cache). */
  file: string;
  /** Records in the file, before any row was dropped. */
  rowsRead: number;
  spec: DataSetSpec;
}

export async function loadDataSet(specInput: unknown, opts: LoadOptions = {}): Promise<LoadedDataSet> {
  if (opts.limit !== undefined && !(Number.isInteger(opts.limit) && opts.limit > 0)) {
    throw new UserError(`limit must be a positive whole number, got ${opts.limit}`);
  }
  const spec = parseDataSetSpec(specInput,
    (specInput as { name?: string })?.name ? `data set "${(specInput as { name: string }).name}"` : 'data set spec');
  const { file, source } = await locate(spec, opts);
  const drops = new DropCounter();
  const mapper = new RowMapper(file, spec, drops);
  const examples: Example[] = [];
  const ids = new Map<string, number | undefined>();
  let rowsRead = 0;
  // A data set's text is read as it is: a leading ' is only genstudy's own mark in the tables it writes.
  for await (const row of readRows(file, { format: spec.format, quote: spec.quote, delimiter: spec.delimiter, verbatim: true })) {
    rowsRead++;
    const example = mapper.map(row);
    if (!example) continue;
    if (ids.has(example.id)) {
      const first = ids.get(example.id);
      throw new UserError(
        `${where(file, row.line)}: duplicate id "${example.id}"${spec.id ? ` in field "${spec.id}"` : ''}` +
          `${first !== undefined ? ` (first seen at line ${first})` : ''}; ids must be unique`,
      );
    }
    ids.set(example.id, row.line);
    examples.push(example);
    if (opts.limit !== undefined && examples.length >= opts.limit) break;
  }
  if (rowsRead === 0) throw new UserError(`${file}: the file has no records`);
  if (examples.length === 0) {
    const why = drops.list().map((d) => `${d.count} ${d.reason}`).join('; ');
    throw new UserError(`${file}: empty set after mapping: all ${rowsRead} rows were dropped (${why})`);
  }
  let kept = examples;
  if (spec.sample) {
    const sampled = applySample(examples, spec.sample, file);
    kept = sampled.kept;
    drops.add(sampled.reason, sampled.left);
  }
  return { examples: kept, dropped: drops.list(), contentHash: contentHash(kept), source, file, rowsRead, spec };
}

async function locate(spec: DataSetSpec, opts: LoadOptions): Promise<{ file: string; source: string }> {
  if (spec.path !== undefined) {
    const file = resolve(opts.baseDir ?? process.cwd(), spec.path);
    return { file, source: file };
  }
  const hub = spec.hub!;
  const got = await resolveHubFile(hub, opts.hub);
  const kind = hub.repoType === 'model' ? 'models' : 'datasets';
  return { file: got.path, source: `hf://${kind}/${hub.repo}@${got.commit}/${hub.file}` };
}

/** A file's text; a file that cannot be read is a UserError naming it. */
async function readText(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UserError(err.code === 'ENOENT' ? `${file}: file not found` : `${file}: ${err.message}`);
  });
}

/** Reads a spec file (YAML or JSON); relative paths inside it resolve against its folder. */
export async function readSpecFile(file: string): Promise<{ spec: DataSetSpec; baseDir: string }> {
  const text = await readText(file);
  let value: unknown;
  try {
    value = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new UserError(`${file}: not valid ${extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  return { spec: parseDataSetSpec(value, file), baseDir: dirname(resolve(file)) };
}

/**
 * A file named as a data set: a spec file (YAML, or a JSON object holding "path" or "hub"), else a
 * data file read with the default mapping (`label`: its label column). A JSON file is read and
 * parsed once: what is not a spec (an array, JSON Lines, which also start with "{") is data.
 */
export async function readSpecOrDataFile(file: string, label?: string): Promise<{ spec: DataSetSpec; baseDir: string }> {
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return readSpecFile(file);
  const baseDir = dirname(resolve(file));
  if (ext === '.json') {
    const value = specObject(await readText(file));
    if (value !== undefined) return { spec: parseDataSetSpec(value, file), baseDir };
  }
  return { spec: parseDataSetSpec({ path: resolve(file), ...(label ? { label } : {}) }, file), baseDir };
}

/** A JSON text's value when it is one object naming where rows come from ("path" or "hub"), else undefined. */
function specObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // a JSON Lines data file also starts with "{"
  }
  return typeof value === 'object' && value !== null && ('path' in value || 'hub' in value) ? value as Record<string, unknown> : undefined;
}
