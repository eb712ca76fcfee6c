// Reads a folder of lm-evaluation-harness output (`results_<date>.json`, one per checkpoint) as
// score rows. lm-eval does not record training steps, so the step comes from the path
// (checkpoint-2000, step2000, global_step2000 — the deepest such folder) or, failing that, from
// `config.model_args` (e.g. `revision=step2000`, as Pythia-style checkpoints are named). The run is
// the path to that folder with the step component left out.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep, basename, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import type { ScoreRow } from './score-row.ts';

const STEP_IN_NAME = /^(?:checkpoint|global_step|step|ckpt|iter)[-_]?(\d+)$/i;
const STEP_IN_MODEL_ARGS = /(?:revision|checkpoint|pretrained)=[^,]*?(?:step|checkpoint)[-_]?(\d+)/i;

export async function findResultFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      throw new UserError(`${dir}: cannot read folder (${(err as Error).message})`);
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (/^results.*\.json$/.test(e.name)) found.push(p);
    }
  }
  await walk(folder);
  return found.sort();
}

export async function readLmEvalFolder(folder: string): Promise<ScoreRow[]> {
  const files = await findResultFiles(folder);
  if (files.length === 0) throw new UserError(`${folder}: no lm-evaluation-harness results_*.json files found`);
  const rows: ScoreRow[] = [];
  for (const file of files) rows.push(...parseLmEvalResults(JSON.parse(await readJson(file)), file, folder));
  return rows;
}

async function readJson(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  return text;
}

/** Turns one parsed results file into rows; `root` is the folder the run names are relative to. */
export function parseLmEvalResults(doc: unknown, file: string, root: string): ScoreRow[] {
  if (typeof doc !== 'object' || doc === null || typeof (doc as { results?: unknown }).results !== 'object') {
    throw new UserError(`${file}: field "results": expected lm-evaluation-harness output with a "results" object`);
  }
  const d = doc as { results: Record<string, Record<string, unknown>>; config?: { model_args?: unknown }; 'n-samples'?: Record<string, { effective?: number; original?: number }> };
  const { run, step } = runAndStep(file, root, d.config?.model_args);
  const rows: ScoreRow[] = [];
  for (const [task, metrics] of Object.entries(d.results)) {
    for (const [key, value] of Object.entries(metrics)) {
      if (key === 'alias' || /_stderr(,|$)/.test(key) || typeof value !== 'number') continue;
      const [metric, filter] = key.split(',');
      rows.push({
        run,
        step,
        testSet: task,
        metric: filter === undefined || filter === 'none' ? metric : `${metric},${filter}`,
        value,
        attributes: { source: 'lm-evaluation-harness' },
        origin: `${file}, field "results.${task}.${key}"`,
      });
    }
  }
  return rows;
}

function runAndStep(file: string, root: string, modelArgs: unknown): { run: string; step: number } {
  const parts = relative(resolve(root), resolve(file)).split(sep).slice(0, -1);
  for (let i = parts.length - 1; i >= 0; i--) {
    const m = STEP_IN_NAME.exec(parts[i]);
    if (m) {
      const rest = parts.filter((_, j) => j !== i);
      return { run: rest.length ? rest.join('/') : basename(resolve(root)), step: Number(m[1]) };
    }
  }
  const m = typeof modelArgs === 'string' ? STEP_IN_MODEL_ARGS.exec(modelArgs) : null;
  if (m) return { run: parts.length ? parts.join('/') : basename(resolve(root)), step: Number(m[1]) };
  throw new UserError(`${file}: cannot tell the training step: no folder named like checkpoint-N / step-N / global_stepN on its path, and config.model_args names no step`);
}
