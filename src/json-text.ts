// JSON text from a user's file, read with one wording for what is wrong with it: a byte-order mark
// dropped, an error that points at the line and column without echoing the record back, and JSON
// Lines (one object a line, blank lines skipped) parsed here for every reader of them (data sets,
// `metrics` id/text files, `score` inputs, the synthetic suite's files), so a bad line reads the
// same wherever it is found.
import { UserError, where } from './errors.ts';

/** Strips a UTF-8 byte-order mark, which some exporters write and JSON.parse rejects. */
export function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/**
 * The useful part of a JSON.parse error and, when known, the 0-based offset where it stopped: V8's
 * messages either give "at position N" or quote the whole input back, and a long record must never
 * be echoed into an error message.
 */
export function jsonErrorDetail(err: unknown, text: string): { detail: string; offset?: number } {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /at position (\d+)/.exec(message);
  let detail = message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
  if (/^Unexpected end of JSON input/.test(message)) detail = 'unexpected end of the record';
  if (detail.length > 200) detail = detail.slice(0, 200) + '...';
  if (pos) return { detail, offset: Number(pos[1]) };
  // "Unexpected token 'x'" comes without a position: the first such character outside strings is
  // where V8 stopped (it reports the first character it cannot use).
  const tok = /^Unexpected token '(.)'/.exec(message);
  if (tok) {
    const offset = firstOutsideStrings(text, tok[1]);
    if (offset !== undefined) return { detail, offset };
  }
  return { detail };
}

function firstOutsideStrings(text: string, ch: string): number | undefined {
  let inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ch) return k;
  }
  return undefined;
}

/** One JSON-lines line (1-based `line`) as an object; anything else is a UserError at file:line(:column). */
export function parseJsonLine(text: string, file: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const { detail, offset } = jsonErrorDetail(err, text);
    throw new UserError(`${where(file, line, offset === undefined ? undefined : offset + 1)}: invalid JSON: ${detail}`, { file, line });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new UserError(`${where(file, line)}: line is ${kind}, expected a JSON object`, { file, line });
  }
  return value as Record<string, unknown>;
}

/** The objects of a whole JSON-lines text with their 1-based line numbers; blank lines skipped. */
export function parseJsonLines(text: string, file: string): { line: number; values: Record<string, unknown> }[] {
  const out: { line: number; values: Record<string, unknown> }[] = [];
  stripBom(text).split('\n').forEach((raw, i) => {
    if (raw.trim() !== '') out.push({ line: i + 1, values: parseJsonLine(raw, file, i + 1) });
  });
  return out;
}
