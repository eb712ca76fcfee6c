// Prompt templates with {field} slots, rendered byte for byte.
//
// The syntax is the subset of Python's str.format_map that study B's prompt_map.json uses:
// `{name}` is a slot, `{{` and `}}` are literal braces, and nothing else is special (no format
// specs, no attribute access). Values are inserted as they are: no trimming, no added spaces, no
// recursive formatting of braces inside a value, so a rendered prompt equals what Python's
// `template.format_map(row)` gives for the same row.
import { UserError } from '../errors.ts';

export type TemplatePart = { kind: 'text'; text: string } | { kind: 'slot'; field: string };

export interface Template {
  /** A name for error messages, e.g. "study-b/prompt-1/sentiment". */
  readonly name: string;
  readonly source: string;
  readonly parts: readonly TemplatePart[];
  /** The slot names, in order of first appearance. */
  readonly fields: readonly string[];
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Parses a template; throws UserError naming the template and the character offset of a bad brace. */
export function parseTemplate(source: string, name = 'template'): Template {
  const parts: TemplatePart[] = [];
  const fields: string[] = [];
  let text = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '{') {
      if (source[i + 1] === '{') { text += '{'; i += 2; continue; }
      const close = source.indexOf('}', i + 1);
      if (close < 0) {
        throw new UserError(`template "${name}": unclosed "{" at offset ${i}; write "{{" for a literal brace`);
      }
      const field = source.slice(i + 1, close);
      if (!FIELD_NAME.test(field)) {
        throw new UserError(
          `template "${name}": bad slot "{${field}}" at offset ${i}; expected {field_name} (letters, digits, _ . -), or "{{" for a literal brace`,
        );
      }
      if (text) { parts.push({ kind: 'text', text }); text = ''; }
      parts.push({ kind: 'slot', field });
      if (!fields.includes(field)) fields.push(field);
      i = close + 1;
      continue;
    }
    if (ch === '}') {
      if (source[i + 1] === '}') { text += '}'; i += 2; continue; }
      throw new UserError(`template "${name}": single "}" at offset ${i}; write "}}" for a literal brace`);
    }
    text += ch;
    i += 1;
  }
  if (text) parts.push({ kind: 'text', text });
  return { name, source, parts, fields };
}

/**
 * Fills the slots from `fields`. A missing field is a UserError naming the template, the field, the
 * example (when given) and the fields it does have.
 */
export function renderTemplate(template: Template, fields: Record<string, string>, exampleId?: string): string {
  let out = '';
  for (const part of template.parts) {
    if (part.kind === 'text') { out += part.text; continue; }
    const value = Object.hasOwn(fields, part.field) ? fields[part.field] : undefined;
    if (value === undefined || value === null) {
      const who = exampleId === undefined ? 'the example' : `example "${exampleId}"`;
      const have = Object.keys(fields).join(', ') || '(none)';
      throw new UserError(`template "${template.name}": ${who} has no field "${part.field}" (it has: ${have})`);
    }
    if (typeof value !== 'string') {
      throw new UserError(
        `template "${template.name}": field "${part.field}" of ${exampleId === undefined ? 'the example' : `example "${exampleId}"`} is ` +
        `a ${typeof value}, expected a string`,
      );
    }
    out += value;
  }
  return out;
}

/** Parse-and-render in one call, for one-off use; parse once with parseTemplate for many rows. */
export function render(source: string, fields: Record<string, string>, name?: string): string {
  return renderTemplate(parseTemplate(source, name), fields);
}
