// The registry of known data sets (registry.json, data not code): ids "<set>:<split>", each split
// with a local file (relative to a data folder) and/or a hub file, and the mapping to Examples.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { TASK_KINDS, type TaskKind } from '../types.ts';
import { HubFileSchema, MappingShape, SourceShape, formatIssues, parseDataSetSpec, type DataSetSpec } from './spec.ts';
import { loadDataSet, type LoadOptions, type LoadedDataSet } from './load.ts';

const MappingSchema = z.strictObject(MappingShape);

const LocalSchema = z.strictObject({
  path: SourceShape.path.unwrap(),
  format: SourceShape.format,
  quote: SourceShape.quote,
  delimiter: SourceShape.delimiter,
  mapping: MappingSchema.optional(),
});

const HubSourceSchema = HubFileSchema.extend({ mapping: MappingSchema.optional() });

const SplitSchema = z
  .strictObject({
    local: LocalSchema.optional(),
    hub: HubSourceSchema.optional(),
    /** Expected records in the file (documentation; tests check it where the data is here). */
    rows: z.number().int().positive().optional(),
  })
  .refine((s) => s.local || s.hub, 'a split needs a "local" or a "hub" source');

const SetSchema = z.strictObject({
  /**
   * The task preset the set is evaluated with when no task is chosen (a name of the preset table,
   * src/tasks/task-presets.ts: "study-a", "study-b/<task>"); none: the user names the task.
   */
  preset: z.string().min(1).optional(),
  task: z.enum(TASK_KINDS),
  description: z.string(),
  mapping: MappingSchema,
  splits: z.record(z.string().min(1), SplitSchema),
  /** Rows a study's released code kept by mistake, replayed under `protocol: official` (replayed-bug.ts). */
  replayedBug: z.strictObject({ label: z.string(), gold: z.string(), trainTokenId: z.number().int().min(0), source: z.string() }).optional(),
});

const RegistrySchema = z.strictObject({
  $comment: z.string().optional(),
  sets: z.record(z.string().regex(/^[a-z0-9][a-z0-9/_.-]*$/, 'set ids are lowercase, with / _ . -'), SetSchema),
});

export type Registry = z.output<typeof RegistrySchema>;
export type RegistrySet = z.output<typeof SetSchema>;

export const REGISTRY_FILE = join(dirname(fileURLToPath(import.meta.url)), 'registry.json');

let cached: Registry | undefined;

/** The registry shipped with genstudy, or another registry file. */
export function readRegistry(file = REGISTRY_FILE): Registry {
  if (file === REGISTRY_FILE && cached) return cached;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`${file}: cannot read the registry: ${(err as Error).message}`);
  }
  const result = RegistrySchema.safeParse(value);
  if (!result.success) throw new UserError(formatIssues(file, result.error.issues));
  if (file === REGISTRY_FILE) cached = result.data;
  return result.data;
}

/** Every "<set>:<split>" id. */
export function registeredIds(registry = readRegistry()): string[] {
  return Object.entries(registry.sets).flatMap(([set, entry]) => Object.keys(entry.splits).map((split) => `${set}:${split}`));
}

export function isRegistryId(id: string, registry = readRegistry()): boolean {
  const [set] = id.split(':');
  return set in registry.sets;
}

/** GENSTUDY_DATA, else ../shared/data from the current folder or from the genstudy checkout, when present. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GENSTUDY_DATA) return resolve(env.GENSTUDY_DATA);
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [resolve('../shared/data'), resolve(here, '../../../shared/data')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Where a registered split is read from: auto (the default) takes the local file when it exists, else the hub's. */
export const DATA_SOURCES = ['auto', 'local', 'hub'] as const;
export type DataSource = (typeof DATA_SOURCES)[number];

export interface RegistryOptions {
  /** Folder that local paths are relative to. Default: defaultDataDir(). */
  dataDir?: string;
  /** auto (default): the local file when it exists, else the hub file. */
  source?: DataSource;
  registry?: Registry;
  /** Check that a chosen local file exists (default true; false only builds the spec). */
  mustExist?: boolean;
}

export interface RegisteredSpec {
  id: string;
  set: RegistrySet;
  split: string;
  spec: DataSetSpec;
  baseDir?: string;
  /** Which of the split's sources was chosen. */
  from: 'local' | 'hub';
}

/** The data set spec a registry id stands for, with the source chosen. */
export function registrySpec(id: string, opts: RegistryOptions = {}): RegisteredSpec {
  const registry = opts.registry ?? readRegistry();
  const [setId, splitName, ...rest] = id.split(':');
  const set = registry.sets[setId];
  if (!set || rest.length) {
    const near = Object.keys(registry.sets).filter((s) => s.includes(setId.split('/').pop() ?? setId));
    throw new UserError(`unknown data set "${id}"; expected "<set>:<split>"${near.length
      ? `, e.g. ${near.slice(0, 5).map((s) => `"${s}:${Object.keys(registry.sets[s].splits)[0]}"`).join(', ')}`
      : ' (genstudy data list shows them)'}`);
  }
  const splits = Object.keys(set.splits);
  const split = splitName ?? (splits.length === 1 ? splits[0] : undefined);
  if (split === undefined || !(split in set.splits)) {
    throw new UserError(`data set "${setId}" has no split "${splitName ?? ''}"; expected one of ${splits.map((s) => `"${s}"`).join(', ')}`);
  }
  const entry = set.splits[split];
  const dataDir = opts.dataDir ?? defaultDataDir();
  const want = opts.source ?? DATA_SOURCES[0];
  const localFile = entry.local && dataDir ? resolve(dataDir, entry.local.path) : undefined;
  let from: 'local' | 'hub';
  if (want === 'local' || (want === 'auto' && entry.local && (!entry.hub || (localFile && existsSync(localFile))))) {
    if (!entry.local) throw new UserError(`data set "${setId}:${split}" has no local source; it loads from the hub (${entry.hub!.repo})`);
    if (!dataDir) {
      throw new UserError(`data set "${setId}:${split}" needs a data folder holding ${entry.local.path}: pass --data-dir or set GENSTUDY_DATA`);
    }
    if (opts.mustExist !== false && !existsSync(localFile!)) {
      throw new UserError(`data set "${setId}:${split}": ${localFile} not found (data folder ` +
        `${dataDir})${entry.hub ? `; it is also on the hub as ${entry.hub.repo}` : ''}`);
    }
    from = 'local';
  } else {
    if (!entry.hub) throw new UserError(`data set "${setId}:${split}" has no hub source`);
    from = 'hub';
  }
  const { mapping: sourceMapping, ...source } = from === 'local' ? entry.local! : entry.hub!;
  const spec = parseDataSetSpec(
    {
      name: `${setId}:${split}`,
      split,
      ...set.mapping,
      ...sourceMapping,
      ...(from === 'local' ? source : { hub: source }),
    },
    `registry entry "${setId}:${split}"`,
  );
  return { id: `${setId}:${split}`, set, split, spec, baseDir: from === 'local' ? dataDir : undefined, from };
}

/** Loads a registered data set, e.g. loadRegistered('study-b/sentiment/amazon:test', { dataDir }). */
export async function loadRegistered(
  id: string, opts: RegistryOptions & Omit<LoadOptions, 'baseDir'> = {},
): Promise<LoadedDataSet & { id: string; task: TaskKind; preset?: string }> {
  const r = registrySpec(id, opts);
  const loaded = await loadDataSet(r.spec, { baseDir: r.baseDir, hub: opts.hub, limit: opts.limit });
  return { ...loaded, id: r.id, task: r.set.task, ...(r.set.preset === undefined ? {} : { preset: r.set.preset }) };
}
