// Resolving --test-set arguments into examples with a content hash: a registry id
// ("study-a/rte:train"), a data set spec file (YAML or JSON, src/data/spec.ts), the generated
// synthetic suite ("synthetic" or "synthetic:in-domain,overlap-broken"), or a folder written by writeSuite.
// --limit keeps the first N examples; the content hash covers exactly the examples evaluated.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { contentHash, isRegistryId, keepingBugRows, loadDataSet, loadRegistered, readRegistry, readSpecFile, registrySpec, replayedBugOf,
  type ReplayedBug } from '../data/index.ts';
import { generateSuite, readSuite, SUITE_DEFAULTS } from '../synth/index.ts';

export interface DemonstrationPool { name: string; examples: Example[] }

export interface EvalTestSet {
  /** The id scores are stored under. */
  id: string;
  examples: Example[];
  contentHash: string;
  /** Where the examples came from, for messages. */
  source: string;
  /** Recorded with the test set in the store (how it was made). */
  spec: Record<string, unknown>;
  /** The task preset the set implies ("study-a", "study-b/<task>", "synthetic"), used when no --task is given. */
  taskPreset?: string;
  /** The pool in-context demonstrations come from (study B: the set's few-shot file); loaded on first use. */
  demonstrationPool?: () => Promise<DemonstrationPool>;
  /**
   * Labels of rows kept although they have no gold answer (study B's "-", with unlabeledRows:
   * wrong): such a row is scored and always counts as wrong, as evaluate_cross.py counted it.
   */
  unlabeled?: string[];
}

export interface TestSetOptions {
  /** Keep the first N examples of every set (study B: 250). */
  limit?: number;
  /** Data folder for registry ids (default: GENSTUDY_DATA or ../shared/data). */
  dataDir?: string;
  /** The synthetic suite's seed and per-set size when "synthetic" is asked for. */
  synthSeed?: number;
  synthSize?: number;
  /** How an unknown argument is named in the error (default: "--test-set ARG"; a study file names its field). */
  origin?: string;
  /**
   * Rows whose label the registry drops (study B's "-"): 'drop' (default) skips them, so --limit
   * takes gold rows from further down; 'wrong' keeps the file's first --limit rows as they are and
   * counts those rows wrong (study B's released code).
   */
  unlabeledRows?: 'wrong' | 'drop';
  /**
   * Keep the rows a set's released code kept by mistake, scored with its gold (the registry's
   * replayedBug: study A's MNLI neutral rows as "Yes"); the set's spec records how many.
   */
  replayBugs?: boolean;
}

function limited(examples: Example[], limit: number | undefined): Example[] {
  return limit === undefined ? examples : examples.slice(0, limit);
}

function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new UserError(`--limit ${limit}: expected a positive whole number`);
}

function suiteSets(
  sets: Record<string, Example[]>, train: Example[], wanted: string[] | undefined, origin: string, opts: TestSetOptions,
  spec: Record<string, unknown>,
): EvalTestSet[] {
  const ids = wanted ?? Object.keys(sets);
  return ids.map((id) => {
    const all = sets[id];
    if (!all) {
      throw new UserError(`${origin}: the synthetic suite has no test set "${id}"; it has ${Object.keys(sets).map((s) => `"${s}"`).join(', ')}`,
        { field: origin });
    }
    const examples = limited(all, opts.limit);
    return {
      id, examples, contentHash: contentHash(examples), source: `${origin} (${id})`,
      spec: { ...spec, set: id, limit: opts.limit ?? null },
      taskPreset: 'synthetic',
      demonstrationPool: async () => ({ name: `${origin} training set`, examples: train }),
    };
  });
}

/** A registered set with its dropped labels kept as labels of their own (unlabeledRows: wrong). */
async function loadKeepingUnlabeled(
  id: string, opts: TestSetOptions,
): Promise<{ loaded: Awaited<ReturnType<typeof loadRegistered>>; unlabeled: string[] }> {
  const r = registrySpec(id, { dataDir: opts.dataDir });
  const unlabeled = r.spec.dropLabels ?? [];
  if (unlabeled.length === 0) return { loaded: await loadRegistered(id, { dataDir: opts.dataDir, limit: opts.limit }), unlabeled };
  const labels = { ...(r.spec.labels ?? {}), ...Object.fromEntries(unlabeled.map((l) => [l, l])) };
  const loaded = await loadDataSet({ ...r.spec, labels, dropLabels: [] }, { baseDir: r.baseDir, limit: opts.limit });
  return { loaded: { ...loaded, id: r.id, task: r.set.task, preset: r.set.preset }, unlabeled };
}

/** A registered set with its replayed bug's rows kept and relabelled with the release's gold; how many were kept. */
async function loadReplayingBug(
  id: string, bug: ReplayedBug, opts: TestSetOptions,
): Promise<{ loaded: Awaited<ReturnType<typeof loadRegistered>>; kept: number }> {
  const r = registrySpec(id, { dataDir: opts.dataDir });
  const own = await loadDataSet(keepingBugRows(r.spec, bug, 'own'), { baseDir: r.baseDir, limit: opts.limit });
  const kept = own.examples.filter((ex) => ex.label === bug.label).length;
  const examples = own.examples.map((ex) => (ex.label === bug.label ? { ...ex, label: bug.gold } : ex));
  return { loaded: { ...own, examples, contentHash: contentHash(examples), id: r.id, task: r.set.task, preset: r.set.preset }, kept };
}

async function fromRegistry(id: string, opts: TestSetOptions): Promise<EvalTestSet> {
  const bug = opts.replayBugs ? replayedBugOf(id) : undefined;
  const replayed = bug ? await loadReplayingBug(id, bug, opts) : undefined;
  const keep = !replayed && opts.unlabeledRows === 'wrong' ? await loadKeepingUnlabeled(id, opts) : undefined;
  const loaded = replayed?.loaded ?? keep?.loaded ?? await loadRegistered(id, { dataDir: opts.dataDir, limit: opts.limit });
  const setId = loaded.id.split(':')[0];
  const entry = readRegistry().sets[setId];
  const set: EvalTestSet = {
    id: loaded.id, examples: loaded.examples, contentHash: loaded.contentHash, source: loaded.source,
    spec: {
      registry: loaded.id, source: loaded.source, limit: opts.limit ?? null, dropped: loaded.dropped,
      unlabeledRows: opts.unlabeledRows ?? 'drop', rowsRead: loaded.rowsRead,
    },
    taskPreset: loaded.preset,
  };
  if (replayed) set.spec.replayedBug = { label: bug!.label, gold: bug!.gold, kept: replayed.kept, source: bug!.source };
  const kept = loaded.examples.filter((ex) => ex.label !== undefined && keep?.unlabeled.includes(ex.label)).length;
  if (keep && kept > 0) {
    set.unlabeled = keep.unlabeled;
    set.spec.unlabeledKept = kept;
  }
  if ('few-shot' in entry.splits && loaded.id !== `${setId}:few-shot`) {
    const poolId = `${setId}:few-shot`;
    set.demonstrationPool = async () => {
      const pool = await loadRegistered(poolId, { dataDir: opts.dataDir });
      return { name: `${poolId} (${pool.source})`, examples: pool.examples };
    };
  }
  return set;
}

async function fromSpecFile(file: string, opts: TestSetOptions): Promise<EvalTestSet> {
  const { spec, baseDir } = await readSpecFile(file);
  const loaded = await loadDataSet(spec, { baseDir, limit: opts.limit });
  const id = spec.name ?? path.basename(file).replace(/\.(ya?ml|json)$/i, '');
  return {
    id, examples: loaded.examples, contentHash: loaded.contentHash, source: loaded.source,
    spec: { specFile: path.resolve(file), source: loaded.source, limit: opts.limit ?? null, dropped: loaded.dropped },
  };
}

/** The synthetic suite's test-set argument, "synthetic" (every set) or "synthetic:a,b" (those named); undefined for any other argument. */
export function syntheticArg(arg: string): { sets?: string[] } | undefined {
  if (arg === 'synthetic') return {};
  return arg.startsWith('synthetic:') ? { sets: arg.slice('synthetic:'.length).split(',') } : undefined;
}

/** Resolves one --test-set argument into one or more test sets. */
export async function resolveTestSetArg(arg: string, opts: TestSetOptions = {}): Promise<EvalTestSet[]> {
  checkLimit(opts.limit);
  const synthetic = syntheticArg(arg);
  if (synthetic) {
    const seed = opts.synthSeed ?? SUITE_DEFAULTS.seed;
    const size = opts.synthSize ?? SUITE_DEFAULTS.testSize;
    const suite = generateSuite({ seed, trainSize: SUITE_DEFAULTS.trainSize, testSize: size });
    const sets = Object.fromEntries(suite.testSets.map((s) => [s.id, s.examples]));
    const wanted = synthetic.sets?.filter((s) => s !== '');
    return suiteSets(sets, suite.train, wanted, `synthetic suite (seed ${seed}, ${size} per set)`, opts,
      { synthetic: { seed, testSize: size, trainSize: SUITE_DEFAULTS.trainSize } });
  }
  if (fs.existsSync(arg) && fs.statSync(arg).isDirectory()) {
    if (!fs.existsSync(path.join(arg, 'suite.json'))) {
      throw new UserError(
        `${arg}: a folder given as a test set must be a synthetic suite (with suite.json); for other data write a data set spec file`);
    }
    const { manifest, train, testSets } = await readSuite(arg);
    return suiteSets(testSets, train, undefined, path.resolve(arg), opts, { suiteFolder: path.resolve(arg), seed: manifest.seed });
  }
  if (/\.(ya?ml|json)$/i.test(arg)) {
    if (!fs.existsSync(arg)) throw new UserError(`${arg}: test set spec file not found`);
    return [await fromSpecFile(arg, opts)];
  }
  if (isRegistryId(arg)) return [await fromRegistry(arg, opts)];
  throw new UserError(
    `${opts.origin ?? `--test-set ${arg}`}: not a known data set id, a spec file (.yaml/.yml/.json), a synthetic suite folder, or ` +
      '"synthetic[:set,...]" (genstudy data list shows the known ids)',
    { field: opts.origin },
  );
}

/** Resolves every --test-set argument; two sets with one id are an error. */
export async function resolveTestSets(args: readonly string[], opts: TestSetOptions = {}): Promise<EvalTestSet[]> {
  if (args.length === 0) throw new UserError('no test set: pass --test-set SPEC (a data set id, a spec file, or synthetic)');
  const out: EvalTestSet[] = [];
  const seen = new Map<string, string>();
  for (const arg of args) {
    for (const set of await resolveTestSetArg(arg, opts)) {
      if (seen.has(set.id)) throw new UserError(`test set id "${set.id}" comes twice (from ${seen.get(set.id)} and ${arg}); ids must be unique`);
      seen.set(set.id, arg);
      out.push(set);
    }
  }
  return out;
}
