// The generate task: requests for an engine, and the engine's text cut the way study B cut it.
//
// Study B (GitHub LHRYANG/Generalization_of_FT-LLM) generated greedily with no stop sequence,
// stored `generated_text.strip()` (evaluate_cross.py), and scored
// `generation.split("\n\n")[0]` (indicator_cross.py): strip first, then keep the text before the
// first blank line. Passing "\n\n" to the engine as a stop sequence instead would return an empty
// string whenever the model starts with a blank line, so the study B preset passes no stop and
// cuts here.
import type { Example, GenerateRequest } from '../types.ts';
import { buildContext, referenceOf, taskJoin, taskTemplate, type GenerateTaskSpec, type GenerationPostprocess } from './task.ts';
import type { BuildOptions } from './classify.ts';
import { pythonStrip } from '../python-whitespace.ts';
import { UserError } from '../errors.ts';

export interface GenerationRequest extends GenerateRequest { exampleId: string }

export interface GenerationRecord {
  id: string;
  /** The engine's text as returned. */
  raw: string;
  /** After postprocess: what metrics score. */
  prediction: string;
  reference?: string;
}

export function validateGenerateTask(task: GenerateTaskSpec): void {
  if (!Number.isInteger(task.maxNewTokens) || task.maxNewTokens < 1) {
    throw new UserError(`task "${task.name}": maxNewTokens must be a positive integer, got ${task.maxNewTokens}`);
  }
  if (task.postprocess.cutAt.some((s) => s.length === 0)) throw new UserError(`task "${task.name}": postprocess.cutAt has an empty string`);
  if (task.stop.some((s) => s.length === 0)) throw new UserError(`task "${task.name}": stop has an empty string`);
  taskTemplate(task);
}

export function buildGenerateRequests(task: GenerateTaskSpec, examples: readonly Example[], opts: BuildOptions = {}): GenerationRequest[] {
  validateGenerateTask(task);
  return examples.map((ex) => {
    const prompt = buildContext(task, ex, opts.demonstrations?.(ex) ?? [], opts.join ?? taskJoin(task));
    const req: GenerationRequest = { exampleId: ex.id, prompt, maxNewTokens: task.maxNewTokens };
    if (task.stop.length > 0) req.stop = [...task.stop];
    return req;
  });
}

/** Cuts a generation: strip (when asked), then keep what precedes the earliest cutAt string. */
export function postprocessGeneration(text: string, pp: GenerationPostprocess): string {
  let out = pp.strip === 'python' ? pythonStrip(text) : text;
  let cut = out.length;
  for (const s of pp.cutAt) {
    const at = out.indexOf(s);
    if (at >= 0 && at < cut) cut = at;
  }
  out = out.slice(0, cut);
  return out;
}

/** Joins the engine's texts (one per example, in order) with the examples. */
export function generationRecords(task: GenerateTaskSpec, examples: readonly Example[], texts: readonly string[]): GenerationRecord[] {
  if (texts.length !== examples.length) throw new UserError(`task "${task.name}": got ${texts.length} generations for ${examples.length} examples`);
  return examples.map((ex, i) => {
    const rec: GenerationRecord = { id: ex.id, raw: texts[i], prediction: postprocessGeneration(texts[i], task.postprocess) };
    const hasRef = task.targetField !== undefined ? Object.hasOwn(ex.fields, task.targetField) : ex.target !== undefined;
    if (hasRef) rec.reference = referenceOf(task, ex);
    return rec;
  });
}
