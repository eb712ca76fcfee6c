// Reads lm-evaluation-harness output (0.3: lm-eval-v03.ts, 0.4: lm-eval-v04.ts) found under a folder
// as score rows. lm-eval does not record training steps, so the step comes from the path (the deepest
// folder named checkpoint-2000, step2000, global_step2000, after decoding a 0.4 "__" folder name),
// else the file name (Pythia's `160m_step2000.json`), else `config.model_args` (`revision=step2000`).
// The run is the path to the file with the step part left out.
import { readFile } from 'node:fs/promises';
import { basename, relative, resolve, sep } from 'node:path';
import { UserError, unreadable } from '../errors.ts';
import { parsePythonJson, stripBom } from '../json-text.ts';
import { listed, MISSING_SCORE_NOTE, NON_FINITE_NOTE, Tally } from './missing-values.ts';
import { checkValueRange, parseSampleSize, parseStderr, type ScoreRow } from './score-row.ts';
import { parseLmEval03 } from './lm-eval-v03.ts';
import { decodeModelFolder, isLmEval04, parseLmEval04, type LmEvalFile } from './lm-eval-v04.ts';
import { MODEL_FILES, type FolderReader } from './folder-reader.ts';
import { isSamplesFile, lmEvalExampleResults, pairSamplesFiles } from './lm-eval-samples.ts';
import { ScoreColumns } from './score-columns.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';

const STEP_IN_NAME = /^(?:checkpoint|global_step|step|ckpt|iter)[-_]?(\d+)$/i;
const STEP_IN_FILE_NAME = /(?:^|[_-])(?:step|checkpoint|global_step)[-_]?(\d+)(?=[_.-]|$)/i;
const STEP_IN_MODEL_ARGS = /(?:revision|checkpoint|pretrained|peft)=[^,]*?(?:step|checkpoint)[-_]?(\d+)/i;

/** lm-eval output as a folder format (folder-reader.ts): any *.json but the model files a checkpoint folder holds. */
export const LM_EVAL_READER: FolderReader = {
  listedAs: 'jsonFiles',
  claims: (name) => (name.endsWith('.json') && !MODEL_FILES.has(name) && !name.endsWith('.index.json')) || isSamplesFile(name),
  inputWords: 'lm-evaluation-harness output (0.3 or 0.4)',
  lookedFor: 'lm-evaluation-harness output (results_*.json, or *.json with a "results" object)',
  filesWord: 'lm-evaluation-harness file(s)',
  holds: 'lm-evaluation-harness output',
  alone: 'an lm-evaluation-harness output folder',
  read: (folder, files) => readLmEvalFiles(folder, files),
};

/** Files whose name says they are lm-eval output (0.4's results_<timestamp>.json): they must parse. */
const RESULTS_NAME = /^results.*\.json$/;
/** Both versions write "results" first (json.dump keeps the dict's order): a file that opens so is lm-eval output. */
const OPENS_AS_RESULTS = /^\s*\{\s*"results"\s*:/;

/**
 * Reads the candidate JSON files (score-folder.ts): `reading` is undefined when none is lm-eval
 * output, and `leftOut` names every candidate not read and why, for whichever reading or error the
 * caller ends with. A file that is lm-eval output by its name or its first field and does not parse
 * is an error: leaving it out would drop a checkpoint without a word.
 */
export async function readLmEvalFiles(folder: string, files: readonly string[]): Promise<{ reading?: ScoreReading; leftOut: string[] }> {
  const rows: ScoreRow[] = [];
  const versions = new Set<string>();
  const how = { run: new Set<string>(), step: new Set<string>() };
  const groups = new Map<string, string[]>();
  const notJson: string[] = [];
  const notResults: string[] = [];
  const nonFinite = new Tally(), missingScores = new Tally(), missingStderrs = new Tally();
  const notScores = new KeyTally();
  let read = 0;
  const placeOf = new Map<string, { run: string; step: number }>();
  for (const file of files.filter((f) => !isSamplesFile(basename(f)))) {
    const named = RESULTS_NAME.test(basename(file));
    const text = await readFile(file, 'utf8').catch((err: unknown) => { throw unreadable(file, err); });
    let json: ReturnType<typeof parsePythonJson>;
    try {
      json = parsePythonJson(text, file);
    } catch (err) {
      if (!(err instanceof UserError) || named || OPENS_AS_RESULTS.test(stripBom(text))) throw err;
      notJson.push(err.message);
      continue;
    }
    const doc = json.value;
    if (typeof doc !== 'object' || doc === null ||
      typeof (doc as { results?: unknown }).results !== 'object' || (doc as { results: unknown }).results === null) {
      if (named) {
        throw new UserError(`${file}: field "results": expected lm-evaluation-harness output with a "results" object`, { file, field: 'results' });
      }
      notResults.push(file);
      continue;
    }
    const d = doc as Record<string, unknown> & { results: Record<string, unknown> };
    const parsed = isLmEval04(d) ? parseLmEval04(d) : parseLmEval03(d);
    versions.add(parsed.version);
    for (const [g, subtasks] of parsed.groups) groups.set(g, subtasks);
    const place = runAndStep(file, folder, parsed, how);
    placeOf.set(file, place);
    nonFinite.addNonFinite(file, json.nonFinite);
    for (const key of parsed.missing) missingScores.add(`${file}, field "${key}"`);
    for (const { key, field } of parsed.notScores) notScores.add(key, `${file}, field "${field}"`);
    for (const s of parsed.scores) {
      const origin = `${file}, field "${s.key}"`;
      checkValueRange(s.metric, s.value, origin);
      const row: ScoreRow = { run: place.run, step: place.step, testSet: s.testSet, metric: s.metric, value: s.value,
        attributes: { source: 'lm-evaluation-harness' }, origin };
      if (s.stderr?.value === null) missingStderrs.add(`${file}, field "${s.stderr.key}"`);
      else if (s.stderr) row.stderr = parseStderr(s.stderr.value, file, `field "${s.stderr.key}"`);
      if (s.n) row.n = parseSampleSize(s.n.value, file, `field "${s.n.key}"`);
      rows.push(row);
    }
    read++;
  }
  const leftOut: string[] = [];
  if (notJson.length) leftOut.push(`${notJson.length} JSON file(s) not read: not valid JSON, and not lm-evaluation-harness output by ` +
    `name or first field: ${listed(notJson, '; ')}`);
  if (notResults.length) leftOut.push(`${notResults.length} JSON file(s) not read: no "results" object, so not lm-evaluation-harness ` +
    `output: ${listed(notResults)}`);
  if (read === 0) return { leftOut };
  const samples = pairSamplesFiles(files.filter((f) => isSamplesFile(basename(f))), placeOf);
  leftOut.push(...samples.leftOut);
  const notes: string[] = [];
  nonFinite.noteInto(notes, NON_FINITE_NOTE);
  missingScores.noteInto(notes, MISSING_SCORE_NOTE);
  missingStderrs.noteInto(notes, 'standard error(s) missing (NaN, Infinity or null): no sampling variance for those scores');
  notScores.noteInto(notes);
  for (const [g, subtasks] of groups) {
    const alsoRead = subtasks.filter((t) => rows.some((r) => r.testSet === t));
    if (alsoRead.length && rows.some((r) => r.testSet === g)) {
      notes.push(`"${g}" is lm-eval's aggregate of ${alsoRead.length} subtasks also read ` +
        `(${alsoRead.slice(0, 3).join(', ')}${alsoRead.length > 3 ? ', ...' : ''}): a group correlates with its own subtasks by ` +
        `construction, so choose either with --test-set`);
    }
  }
  return {
    reading: scoreReading({
      scores: ScoreColumns.fromRows(rows),
      description: `lm-evaluation-harness ${[...versions].sort().join(' and ')} output, ${read} file(s)` +
        `${samples.evaluations.length ? ` (and the per-example samples of ${samples.evaluations.length})` : ''}; run from ` +
        `${[...how.run].join(' / ')}, step from ${[...how.step].join(' / ')}`,
      notes,
      ...(samples.evaluations.length ? { exampleResults: lmEvalExampleResults(samples.evaluations) } : {}),
    }),
    leftOut,
  };
}

function runAndStep(file: string, root: string, parsed: LmEvalFile, how: { run: Set<string>; step: Set<string> }): { run: string; step: number } {
  const folders = relative(resolve(root), resolve(file)).split(sep).slice(0, -1);
  // a 0.4 model folder ("__scratch__me__run__checkpoint-500") stands for the path it was named after
  const last = folders.length ? folders[folders.length - 1] : basename(resolve(root));
  const decoded = parsed.version === '0.4' ? decodeModelFolder(last, parsed.modelName) : null;
  const above = folders.length ? folders.slice(0, -1) : [];
  const parts = decoded ? [...above, ...decoded] : folders;
  const runOf = (rest: string[]): string => {
    const joined = rest.join('/').replace(/\/{2,}/g, '/');
    return joined === '' ? basename(resolve(root)) : joined;
  };
  for (let i = parts.length - 1; i >= 0; i--) {
    const m = STEP_IN_NAME.exec(parts[i]);
    if (m) {
      how.run.add(decoded ? 'the model path in the folder name' : 'the folder path');
      how.step.add(decoded ? 'the checkpoint in the folder name' : 'the folder name');
      return { run: runOf(parts.filter((_, j) => j !== i)), step: Number(m[1]) };
    }
  }
  how.run.add(decoded ? 'the model path in the folder name' : 'the folder path');
  const inName = STEP_IN_FILE_NAME.exec(basename(file, '.json'));
  if (inName) {
    how.step.add('the file name');
    return { run: runOf(parts), step: Number(inName[1]) };
  }
  const inArgs = parsed.modelArgs !== undefined ? STEP_IN_MODEL_ARGS.exec(parsed.modelArgs) : null;
  if (inArgs) {
    how.step.add('config.model_args');
    return { run: runOf(parts), step: Number(inArgs[1]) };
  }
  throw new UserError(`${file}: cannot tell the training step: no folder named like checkpoint-N / step-N / global_stepN on its path, ` +
    `no _stepN in the file name, and config.model_args names no step`);
}

/**
 * The fields of "results" that are not scores (0.4.12+ writes "sample_len" beside every task's
 * scores), counted by key across all files: one note naming the first few keys and where the first was.
 */
class KeyTally {
  private readonly counts = new Map<string, number>();
  private first = '';

  add(key: string, place: string): void {
    if (this.counts.size === 0) this.first = place;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  noteInto(notes: string[]): void {
    if (this.counts.size === 0) return;
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const keys = [...this.counts].map(([key, n]) => `${key} (${n})`);
    notes.push(`${total} field(s) in "results" that are not scores left out: ${listed(keys, ', ', 5)} (lm-eval's own bookkeeping, such as ` +
      `sample_len, the number of examples, or a score's key holding text; first at ${this.first})`);
  }
}
