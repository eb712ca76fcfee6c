// Writes a suite to a folder and reads it back: train.jsonl (and train-<variant>.jsonl for each
// further training variant of the artifact design) and one <set>.jsonl per test set (rows
// {"id","premise","hypothesis","label"}), suite.json (describeSuite plus the generator options),
// tokenizer.json and tokenizer_config.json. Each file is written under a temporary name and then
// renamed, so a reader never sees half a file. The bytes depend only on the options.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { UserError, where } from '../errors.ts';
import { parseJsonLines } from '../json-text.ts';
import type { Example } from '../types.ts';
import { describeSuite, trainVariantFile, type SuiteDescription } from './describe.ts';
import type { Suite } from './suite.ts';
import { suiteTokenizerConfig, suiteTokenizerJson } from './tokenizer.ts';
import { writeFileAtomic } from '../atomic-write.ts';

export interface SuiteManifest extends SuiteDescription { options: Suite['options']; vocabulary: string[] }

function toJsonl(examples: readonly Example[]): string {
  return examples
    .map((e) => JSON.stringify({ id: e.id, premise: e.fields.premise, hypothesis: e.fields.hypothesis, label: e.label }))
    .join('\n') + '\n';
}

export function suiteManifest(suite: Suite): SuiteManifest {
  return { ...describeSuite(suite), options: suite.options, vocabulary: suite.vocabulary };
}

/** suite.json's exact text, so a caller can tell whether a folder holds this suite. */
export function suiteManifestText(suite: Suite): string {
  return JSON.stringify(suiteManifest(suite), null, 2) + '\n';
}

/** Writes the suite's files into `dir` (created if needed); returns the paths written. */
export async function writeSuite(dir: string, suite: Suite): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['train.jsonl', toJsonl(suite.train)],
    ...(suite.trainVariants ?? []).slice(1).map((v, i): [string, string] => [trainVariantFile(v.id, i + 1), toJsonl(v.examples)]),
    ...suite.testSets.map((s): [string, string] => [`${s.id}.jsonl`, toJsonl(s.examples)]),
    ['tokenizer.json', JSON.stringify(suiteTokenizerJson(suite), null, 2) + '\n'],
    ['tokenizer_config.json', JSON.stringify(suiteTokenizerConfig(suite), null, 2) + '\n'],
    // The manifest last: its presence means the rest is complete.
    ['suite.json', suiteManifestText(suite)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const file = path.join(dir, name);
    writeFileAtomic(file, text);
    written.push(file);
  }
  return written;
}

function parseJsonl(file: string, text: string): Example[] {
  return parseJsonLines(text, file).map(({ line, values: r }) => {
    for (const k of ['id', 'premise', 'hypothesis', 'label']) {
      if (typeof r[k] !== 'string') throw new UserError(`${where(file, line)}: field "${k}" is missing or not a string`);
    }
    return { id: r.id as string, fields: { premise: r.premise as string, hypothesis: r.hypothesis as string }, label: r.label as string };
  });
}

/** Reads a folder written by writeSuite; `trainVariants` only when the suite has several training sets. */
export async function readSuite(dir: string): Promise<{
  manifest: SuiteManifest; train: Example[]; trainVariants?: { id: string; note: string; examples: Example[] }[]; testSets: Record<string, Example[]>;
}> {
  const manifestFile = path.join(dir, 'suite.json');
  let manifest: SuiteManifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as SuiteManifest;
  } catch (err) {
    throw new UserError(`${manifestFile}: cannot read the suite manifest (${(err as Error).message})`);
  }
  if (manifest.name !== 'genstudy-synthetic-nli') throw new UserError(`${manifestFile}: field "name" is not "genstudy-synthetic-nli"`);
  const read = async (name: string) => parseJsonl(path.join(dir, name), await readFile(path.join(dir, name), 'utf8'));
  const testSets: Record<string, Example[]> = {};
  for (const s of manifest.sets) testSets[s.id] = await read(s.file);
  const train = await read(manifest.train.file);
  if (!manifest.trainVariants) return { manifest, train, testSets };
  const trainVariants = [];
  for (const v of manifest.trainVariants) {
    trainVariants.push({ id: v.id, note: v.note, examples: v.file === manifest.train.file ? train : await read(v.file) });
  }
  return { manifest, train, trainVariants, testSets };
}
