/**
 * Reading `{"id": ..., "text": ...}` JSON-lines files and joining predictions to references by id,
 * for scoring generated text outside an evaluation run (`genstudy metrics rouge`).
 */
import { readFile } from 'node:fs/promises';
import { UserError, unreadable, where } from '../errors.ts';
import { parseJsonLines } from '../json-text.ts';

/** One line of an id/text file. `line` is 1-based, for error messages. */
export interface IdTextRecord {
  id: string | number;
  text: string;
  line: number;
}

export interface JoinedPair {
  id: string | number;
  prediction: string;
  reference: string;
}

/** Parses id/text JSON lines (src/json-text.ts); blank lines are skipped, anything else malformed is a UserError. */
export function parseIdTextJsonl(content: string, file: string): IdTextRecord[] {
  const records: IdTextRecord[] = [];
  const firstLineOfId = new Map<string, number>();
  for (const { line, values } of parseJsonLines(content, file)) {
    const { id, text } = values;
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
      throw new UserError(`${where(file, line, 'id')}: expected a string or number, got ${describe(id)}`);
    }
    if (typeof text !== 'string') {
      throw new UserError(`${where(file, line, 'text')}: expected a string, got ${describe(text)}`);
    }
    const key = String(id);
    const earlier = firstLineOfId.get(key);
    if (earlier !== undefined) {
      throw new UserError(`${where(file, line, 'id')}: id ${JSON.stringify(id)} already appears on line ${earlier}`);
    }
    firstLineOfId.set(key, line);
    records.push({ id, text, line });
  }
  return records;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  return `${Array.isArray(value) ? 'an array' : typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

export async function readIdTextJsonl(file: string): Promise<IdTextRecord[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  return parseIdTextJsonl(content, file);
}

/**
 * Pairs each prediction with the reference of the same id (ids compare as strings, so 7 and "7"
 * match), in the order of the predictions file. Every id must be in both files.
 */
export function joinById(
  predictions: readonly IdTextRecord[],
  references: readonly IdTextRecord[],
  predictionsFile: string,
  referencesFile: string,
): JoinedPair[] {
  const referenceById = new Map(references.map((r) => [String(r.id), r]));
  const predictionIds = new Set(predictions.map((p) => String(p.id)));
  for (const p of predictions) {
    if (!referenceById.has(String(p.id))) {
      throw new UserError(`${where(predictionsFile, p.line, 'id')}: id ${JSON.stringify(p.id)} has no reference in ${referencesFile}`);
    }
  }
  for (const r of references) {
    if (!predictionIds.has(String(r.id))) {
      throw new UserError(`${where(referencesFile, r.line, 'id')}: id ${JSON.stringify(r.id)} has no prediction in ${predictionsFile}`);
    }
  }
  if (predictions.length === 0) throw new UserError(`${predictionsFile}: no predictions (expected lines {"id": ..., "text": ...})`);
  return predictions.map((p) => ({ id: p.id, prediction: p.text, reference: referenceById.get(String(p.id))!.text }));
}
