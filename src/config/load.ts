// Reads a study file (YAML or JSON) and validates it; every error names the file, the line and
// the field, and says what was expected.
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { UserError } from '../errors.ts';
import { StudySchema, type Study } from './schema.ts';

export function loadStudyFile(file: string): Study {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${file}: cannot read the study file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseStudy(text, file);
}

export function parseStudy(text: string, file: string): Study {
  const lines = new LineCounter();
  // JSON is YAML, so one parser serves both and gives line numbers for both.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const at = lines.linePos(e.pos[0]);
    throw new UserError(`${file}:${at.line}:${at.col}: ${e.message.split('\n')[0]}`);
  }
  const result = StudySchema.safeParse(doc.toJS());
  if (!result.success) throw new UserError(describeIssues(result.error.issues, doc, lines, file));
  return result.data;
}

function describeIssues(issues: readonly z.core.$ZodIssue[], doc: Document, lines: LineCounter, file: string): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String);
    const field = path.length ? path.join('.') : '(top level)';
    // An unknown key is best shown where it is written, not where its parent starts.
    const at = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
    const message = issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? `missing (expected ${issue.expected})` : issue.message;
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
