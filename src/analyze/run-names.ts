// Renaming runs, one mapping for every reader (the store, tables, lm-eval and Trainer folders), applied
// as the reading is handed on, so analyze and report list the same names. Why: a reader names a run
// after what the input says (lm-eval 0.4 records the model's absolute path, a Trainer its run folder),
// and those names are long and cannot be changed at the source. A renamed run keeps the name it was
// read with in its attribute `source_run`. Two runs given one name would be pooled as one training,
// so a mapping that merges runs is an error, never a merge.
import { UserError } from '../errors.ts';
import { readRows, rowWhere } from '../data/readers/index.ts';
import { knownNamesText } from '../closest-name.ts';
import { listed } from './missing-values.ts';
import { sortedRunNames } from './run-order.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';

export interface RunNaming {
  /** Text taken off the start of every run name that begins with it (--strip-prefix). */
  stripPrefix?: string;
  /** A run's name as read -> its new name (--run-name old=new, --run-names file.csv); wins over stripPrefix. */
  names?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

/** The attribute a renamed run keeps its name as read in. */
export const SOURCE_RUN_ATTRIBUTE = 'source_run';

/** "old=new" pairs (--run-name), split at the last "=": a path read as a run name may hold "=", a chosen name rarely does. */
export function parseRunNamePairs(specs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const spec of specs) {
    const at = spec.lastIndexOf('=');
    const [from, to] = [spec.slice(0, at), spec.slice(at + 1)];
    if (at < 0 || from === '' || to === '') {
      throw new UserError(`--run-name ${spec}: expected old=new, e.g. "/scratch/me/runs/llama-7b=llama-7b" (a name holding "=" goes in a ` +
        `--run-names file)`);
    }
    addPair(out, from, to, `--run-name ${spec}`);
  }
  return out;
}

/** A CSV (or TSV, JSONL) of columns old, new (--run-names), one row per run. */
export async function readRunNameFile(file: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const record of readRows(file)) {
    const where = rowWhere(file, record);
    const from = record.values.old, to = record.values.new;
    for (const [column, v] of [['old', from], ['new', to]] as const) {
      if (typeof v !== 'string' || v === '') {
        throw new UserError(`${where}: column "${column}" is missing or empty (a --run-names file has columns old, new: a run's name as ` +
          `read and the name to give it)`);
      }
    }
    addPair(out, from as string, to as string, where);
  }
  if (out.size === 0) throw new UserError(`${file}: no rows (a --run-names file has columns old, new)`);
  return out;
}

function addPair(out: Map<string, string>, from: string, to: string, where: string): void {
  const earlier = out.get(from);
  if (earlier !== undefined && earlier !== to) throw new UserError(`${where}: run "${from}" is already renamed to "${earlier}"`);
  out.set(from, to);
}

/** Every run's new name (unchanged ones included) and the notes saying what was renamed or kept. */
export function runNameMapping(runs: readonly string[], naming: RunNaming): { map: Map<string, string>; notes: string[] } {
  const known = sortedRunNames(runs);
  const names = naming.names === undefined ? new Map<string, string>()
    : naming.names instanceof Map ? naming.names : new Map(Object.entries(naming.names));
  for (const from of names.keys()) {
    if (!known.includes(from)) throw new UserError(`--run-name ${from}: the input has no run of that name ${knownNamesText(from, known)}`);
  }
  const prefix = naming.stripPrefix;
  if (prefix !== undefined) {
    if (prefix === '') throw new UserError('--strip-prefix: expected the text to take off the start of run names, got ""');
    if (!known.some((r) => r.startsWith(prefix))) {
      throw new UserError(`--strip-prefix ${prefix}: no run name starts with it (runs: ${listed(known)})`);
    }
  }
  const map = new Map<string, string>();
  const how = new Map<string, '--run-name' | '--strip-prefix'>();
  const kept: string[] = [];
  for (const run of known) {
    const given = names.get(run);
    if (given !== undefined) {
      map.set(run, given);
      if (given !== run) how.set(run, '--run-name');
    } else if (prefix !== undefined && run.startsWith(prefix)) {
      if (run === prefix) throw new UserError(`--strip-prefix ${prefix}: that is the whole name of run "${run}", which would be left with none`);
      map.set(run, run.slice(prefix.length));
      how.set(run, '--strip-prefix');
    } else {
      map.set(run, run);
      if (prefix !== undefined) kept.push(run);
    }
  }
  refuseMerges(map, how);
  const notes: string[] = [];
  if (how.size) {
    const by = (flag: string) => [...how.values()].filter((h) => h === flag).length;
    const counts = (['--run-name', '--strip-prefix'] as const).filter((f) => by(f) > 0).map((f) => `${f}: ${by(f)}`).join(', ');
    notes.push(`${how.size} run(s) renamed (${counts}); each keeps the name it was read with in attribute ${SOURCE_RUN_ATTRIBUTE}`);
  }
  if (kept.length) notes.push(`--strip-prefix ${prefix}: ${kept.length} run(s) do not start with it, names kept: ${listed(kept)}`);
  if (prefix !== undefined && ![...how.values()].includes('--strip-prefix')) {
    notes.push(`--strip-prefix ${prefix}: every run that starts with it is named by --run-name, so it renamed none`);
  }
  return { map, notes };
}

/** Two runs under one name would be pooled as one training: the first such pair is the error, naming both. */
function refuseMerges(map: ReadonlyMap<string, string>, how: ReadonlyMap<string, string>): void {
  const byNew = new Map<string, string>();
  for (const [from, to] of map) {
    const other = byNew.get(to);
    if (other !== undefined) {
      const flag = how.get(from) ?? how.get(other) ?? '--run-name';
      throw new UserError(`${flag}: runs "${other}" and "${from}" would both be named "${to}"; two runs cannot share a name (give ` +
        `each its own with --run-name old=new)`);
    }
    byNew.set(to, from);
  }
}

/** The reading with its runs renamed as `naming` says (its score columns renamed in place; the same reading when it says nothing). */
export function renameRuns(reading: ScoreReading, naming: RunNaming): ScoreReading {
  const runs = [...reading.scores.runs, ...(reading.trainingLog ?? []).map((l) => l.run)];
  if (naming.stripPrefix === undefined && naming.names === undefined) {
    const hint = stripPrefixHint(runs);
    return hint === undefined ? reading : scoreReading({ ...reading, notes: [...reading.notes, hint] });
  }
  const { map, notes } = runNameMapping(runs, naming);
  reading.scores.renameRuns(map, SOURCE_RUN_ATTRIBUTE);
  const trainingLog = reading.trainingLog?.map((l) => ({ ...l, run: map.get(l.run)! }));
  return scoreReading({ ...reading, ...(trainingLog ? { trainingLog } : {}), notes: [...reading.notes, ...notes] });
}

/**
 * When every run is named by an absolute path (lm-eval 0.4 records the model's path), the folder
 * they share, as --strip-prefix would take it off; no renaming is done unless asked, since a default
 * would make a run's name depend on which other runs were read with it.
 */
function stripPrefixHint(runs: readonly string[]): string | undefined {
  const known = sortedRunNames(runs);
  if (known.length === 0 || !known.every((r) => r.startsWith('/'))) return undefined;
  let common = known[0];
  for (const r of known) while (!r.startsWith(common)) common = common.slice(0, -1);
  common = common.slice(0, common.lastIndexOf('/') + 1);
  if (common.length <= 1) return undefined;
  return `run names are absolute paths (as lm-eval records the model): --strip-prefix ${common} would shorten them, ` +
    `or --run-name old=new names each`;
}
