// Reads a study file (YAML or JSON) and validates it; every error names the file, the line and
// the field, and says what was expected.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, isNode, parse as parseYaml, type Document } from 'yaml';
import type { z } from 'zod';
import { UserError, unreadable } from '../errors.ts';
import { StudySchema, type Study } from './schema.ts';
import { PROTOCOL_SETTING_SPECS, type ProtocolSettingSpec } from '../tasks/protocol.ts';
import { currentSpelling } from '../old-spellings.ts';

/**
 * Reads and validates a study file. `overrides` are `field.path=value` settings applied on top
 * (`genstudy run FILE --set models.0.path=/models/opt --set seeds=[1]`): the path is dotted keys
 * and list indices, the value is YAML (`[1, 2]`, `1e-3`, `true`, text).
 */
export function loadStudyFile(file: string, overrides: readonly string[] = []): Study {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err, 'study file');
  }
  return parseStudy(text, file, overrides);
}

/** Fields that hold a path: given with --set, a relative path is relative to the current folder (in the file, to the file). */
const PATH_FIELDS = new Set(['path', 'out', 'dataDir']);

interface Override { text: string; path: (string | number)[]; value: unknown }

function parseOverride(text: string): Override {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UserError(`--set ${text}: expected FIELD=VALUE, e.g. models.0.path=/models/opt-125m or seeds=[1]`);
  const keys = text.slice(0, eq).split('.');
  if (keys.some((k) => k === '')) throw new UserError(`--set ${text}: empty field name in "${text.slice(0, eq)}"`);
  const raw = text.slice(eq + 1);
  let value: unknown;
  try {
    value = raw === '' ? '' : parseYaml(raw);
  } catch (err) {
    throw new UserError(`--set ${text}: the value is not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const last = keys[keys.length - 1];
  if (PATH_FIELDS.has(last) && typeof value === 'string' && value !== '') value = path.resolve(value);
  return { text, path: keys.map((k) => (/^\d+$/.test(k) ? Number(k) : k)), value };
}

function applyOverride(root: unknown, o: Override): void {
  if (typeof root !== 'object' || root === null) throw new UserError(`--set ${o.text}: the study file is not a mapping`);
  let node = root as Record<string | number, unknown>;
  for (const [i, key] of o.path.entries()) {
    const isLast = i === o.path.length - 1;
    if (Array.isArray(node)) {
      if (typeof key !== 'number' || key > node.length) {
        throw new UserError(`--set ${o.text}: "${o.path.slice(0, i).join('.')}" is a list of ${node.length}; use an index from 0 to ${node.length}`);
      }
    } else if (typeof key === 'number') {
      throw new UserError(`--set ${o.text}: "${o.path.slice(0, i).join('.') || '(top level)'}" is not a list`);
    }
    if (isLast) {
      node[key] = o.value;
      return;
    }
    let next = node[key];
    if (next === undefined || next === null) next = node[key] = typeof o.path[i + 1] === 'number' ? [] : {};
    if (typeof next !== 'object') {
      throw new UserError(`--set ${o.text}: "${o.path.slice(0, i + 1).join('.')}" is ${JSON.stringify(next)}, not a mapping or list`);
    }
    node = next as Record<string | number, unknown>;
  }
}

export function parseStudy(text: string, file: string, overrideTexts: readonly string[] = []): Study {
  const lines = new LineCounter();
  // JSON is YAML, so one parser serves both and gives line numbers for both.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const at = lines.linePos(e.pos[0]);
    throw new UserError(`${file}:${at.line}:${at.col}: ${e.message.split('\n')[0]}`);
  }
  const overrides = overrideTexts.map(parseOverride);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    // yaml refuses aliases that expand too far (a "billion laughs" file) as it converts.
    throw new UserError(`${file}: ${(err as Error).message.split('\n')[0]}; write the repeated values out or use fewer aliases`);
  }
  for (const o of overrides) applyOverride(value, o);
  readOldSpellings(value, file);
  const result = StudySchema.safeParse(value);
  if (!result.success) throw new UserError(describeIssues(result.error.issues, doc, lines, file, overrides));
  return result.data;
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A protocol setting written in an old spelling (its oldSpellings, tasks/protocol.ts) is read as the
 * current one, with a note, once per file and setting, that names the file and what to write.
 */
function readOldSpellings(value: unknown, file: string): void {
  if (!isMapping(value)) return;
  for (const [name, spec] of Object.entries(PROTOCOL_SETTING_SPECS) as [string, ProtocolSettingSpec][]) {
    if (spec.oldSpellings === undefined || typeof spec.study !== 'string') continue;
    const sections = spec.study === 'evaluation' ? [value.evaluation] : Array.isArray(value.methods) ? value.methods : [];
    for (const section of sections) {
      if (!isMapping(section) || typeof section[name] !== 'string') continue;
      section[name] = currentSpelling(section[name], spec.oldSpellings, `${file}: ${name}`);
    }
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[], doc: Document, lines: LineCounter, file: string,
  overrides: readonly Override[]): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String);
    const field = path.length ? path.join('.') : '(top level)';
    // An unknown key is best shown where it is written, not where its parent starts.
    const at = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
    const message = issue.code === 'invalid_type' && /received undefined/.test(issue.message)
      ? `missing (expected ${issue.expected})`
      : issue.message;
    // A value set on the command line is named there, not at a line of the file it replaced.
    // (or one that wrote the offending key itself: --set nosuch.field=1 is an unknown key "nosuch").
    const within = (outer: readonly (string | number)[], inner: readonly PropertyKey[]) =>
      outer.length <= inner.length && outer.every((k, i) => String(k) === String(inner[i]));
    const set = [...overrides].reverse().find((o) => within(o.path, at) || (at.length > 0 && within(at as (string | number)[], o.path)));
    if (set) return `--set ${set.text}: ${field}: ${message}`;
    return `${file}:${lineOf(doc, lines, at as (string | number)[])}: ${field}: ${message}`;
  });
  if (issues.length > shown.length) shown.push(`... and ${issues.length - shown.length} more`);
  return shown.join('\n');
}

/** The line of the deepest node on `path` that exists in the document (the parent, for a missing key). */
function lineOf(doc: Document, lines: LineCounter, path: (string | number)[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
  }
  return 1;
}
