// Reading the files of a Hugging Face checkpoint folder: config.json and the weights, single-file or
// sharded (model.safetensors.index.json). The tokenizer files are read by tokenizer.ts.
import fs from 'node:fs';
import path from 'node:path';
import { UserError, unreadable } from '../../errors.ts';
import { SafetensorsReader } from './safetensors.ts';

export type HfConfig = Record<string, unknown> & { model_type?: string };

export function readJsonFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  try {
    const value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    // V8's message quotes the text ('Unexpected token 'r', "root:x:0:0..." is not valid JSON'); the
    // reason is kept, the file's contents never (genstudy serve reports these errors to clients).
    const reason = (err as Error).message.replace(/^(Unexpected token) .*? is not valid JSON$/s, '$1').replace(/, ".*" is not valid JSON$/s, '');
    throw new UserError(`${file}: not a valid JSON object (${reason})`);
  }
}

export function readConfig(dir: string): HfConfig {
  const file = path.join(dir, 'config.json');
  if (!fs.existsSync(file)) throw new UserError(`${dir}: not a Hugging Face model folder (no config.json)`);
  return readJsonFile(file) as HfConfig;
}

/** The weight files a folder names (the index's shards, or model.safetensors) in a fixed order, or why it names none. */
export function listWeightFiles(dir: string): { files: string[] } | { why: string } {
  const index = path.join(dir, 'model.safetensors.index.json');
  if (fs.existsSync(index)) {
    let map: unknown;
    try {
      map = (JSON.parse(fs.readFileSync(index, 'utf8')) as { weight_map?: unknown }).weight_map;
    } catch {
      return { why: 'model.safetensors.index.json is not valid JSON' };
    }
    if (typeof map !== 'object' || map === null || Object.values(map).some((f) => typeof f !== 'string')) {
      return { why: 'model.safetensors.index.json has no "weight_map" object of file names' };
    }
    const files = [...new Set(Object.values(map as Record<string, string>))].sort();
    if (files.length === 0) return { why: 'model.safetensors.index.json lists no weight files' };
    return { files: files.map((f) => path.join(dir, f)) };
  }
  const single = path.join(dir, 'model.safetensors');
  if (fs.existsSync(single)) return { files: [single] };
  const other = ['pytorch_model.bin', 'pytorch_model.bin.index.json', 'model.ckpt.index'].find((f) => fs.existsSync(path.join(dir, f)));
  return { why: `no weights (model.safetensors or model.safetensors.index.json)${other ? `; found ${other}, convert it to safetensors` : ''}` };
}

/** The weight files of a folder, in a fixed order; a folder without them is the user's error. */
export function weightFiles(dir: string): string[] {
  const listed = listWeightFiles(dir);
  if ('why' in listed) throw new UserError(`${dir}: ${listed.why}`);
  return listed.files;
}

/** The weight files of a folder opened for reading, and which file holds each tensor. Close them after use. */
export function openWeights(dir: string): { readers: SafetensorsReader[]; byName: Map<string, SafetensorsReader> } {
  const readers: SafetensorsReader[] = [];
  const byName = new Map<string, SafetensorsReader>();
  try {
    for (const file of weightFiles(dir)) {
      const r = new SafetensorsReader(file);
      readers.push(r);
      for (const name of r.names()) {
        if (byName.has(name)) throw new UserError(`${file}: tensor "${name}" is also in ${byName.get(name)!.file}`);
        byName.set(name, r);
      }
    }
  } catch (err) {
    for (const r of readers) r.close();
    throw err;
  }
  return { readers, byName };
}
