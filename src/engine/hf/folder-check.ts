// Is a Hugging Face folder complete? A checkpoint still being written must be skipped, never
// half-read: a writer's temporary names (src/atomic-write.ts), a missing file, or a safetensors file
// shorter than its own header says all mean "not yet". The folder layout itself (shards, index) is
// read by checkpoint.ts.
import fs from 'node:fs';
import path from 'node:path';
import { isTemporaryName } from '../../atomic-write.ts';
import { listWeightFiles } from './checkpoint.ts';
import { safetensorsExpectedSize } from './safetensors.ts';

/** Why `dir` is not a complete model folder, or undefined when it is one (`tokenizerDir` stands in for a missing tokenizer). */
export function incompleteReason(dir: string, tokenizerDir?: string): string | undefined {
  if (!fs.existsSync(path.join(dir, 'config.json'))) return 'no config.json';
  const entries = fs.readdirSync(dir);
  const temp = entries.find(isTemporaryName);
  if (temp) return `a file is being written (${temp})`;
  const listed = listWeightFiles(dir);
  if ('why' in listed) return listed.why;
  for (const file of listed.files) {
    const s = path.relative(dir, file);
    if (!fs.existsSync(file)) return `weight file ${s} is missing`;
    const want = safetensorsExpectedSize(file);
    if (want === undefined) return `weight file ${s} has no readable safetensors header`;
    const have = fs.statSync(file).size;
    if (have < want) return `weight file ${s} is shorter than its header says (${have} of ${want} bytes)`;
  }
  const own = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(own) && !(tokenizerDir && fs.existsSync(path.join(tokenizerDir, 'tokenizer.json')))) {
    return 'no tokenizer.json (a trainer given no tokenizer saves none: pass --tokenizer DIR)';
  }
  if (fs.existsSync(own) && !parsesAsJson(own)) return 'tokenizer.json is not complete JSON (still being copied?)';
  return undefined;
}

/** Files that parsed, by path, with the size and time they had then (watchers look at the same folders every round). */
const parsed = new Map<string, string>();

/** Whether `file` is whole JSON: a tokenizer.json copied without a temporary name can be seen half-written. */
function parsesAsJson(file: string): boolean {
  const st = fs.statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  if (parsed.get(file) === stamp) return true;
  try {
    JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  parsed.set(file, stamp);
  return true;
}

/** Why `dir` is not a complete PEFT LoRA adapter folder, or undefined when it is one. */
export function incompleteAdapterReason(dir: string): string | undefined {
  const entries = fs.readdirSync(dir);
  const temp = entries.find(isTemporaryName);
  if (temp) return `a file is being written (${temp})`;
  if (!entries.includes('adapter_config.json')) return 'no adapter_config.json';
  const file = path.join(dir, 'adapter_model.safetensors');
  if (!fs.existsSync(file)) return 'no adapter_model.safetensors';
  const want = safetensorsExpectedSize(file);
  if (want === undefined) return 'adapter_model.safetensors has no readable safetensors header';
  const have = fs.statSync(file).size;
  if (have < want) return `adapter_model.safetensors is shorter than its header says (${have} of ${want} bytes)`;
  return undefined;
}
