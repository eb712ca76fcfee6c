// JSON text from a user's file, read with one wording for what is wrong with it: a byte-order mark
// dropped, an error that points at the line and column without echoing the record back, and JSON
// Lines (one object a line, blank lines skipped) parsed here for every reader of them (data sets,
// `metrics` id/text files, `score` inputs, the synthetic suite's files), so a bad line reads the
// same wherever it is found. JSON as Python's json module writes it (NaN and infinities as bare
// tokens) is parsed here too, for every reader of files Python wrote (lm-evaluation-harness output,
// the Trainer's trainer_state.json).
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
  // V8 writes "... in JSON at position N", "... after JSON at position N" and "..., "<the text>" is not
  // valid JSON", the text cut to '..."<tail>"' when long
  let detail = message.replace(/(?: in JSON)? at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
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

/** A value Python wrote that JSON has no place for, read as null: where it was and how it was written. */
export interface NonFiniteValue {
  /** The field's path, e.g. `results.wsc.acc_stderr` or `log_history[3].grad_norm`. */
  field: string;
  line: number;
  /** As written: NaN, Infinity, -Infinity, or a number beyond a double's range (1e999). */
  token: string;
}

// Only text that may hold one is scanned: JSON.parse alone is several times faster.
const MAYBE_NON_FINITE = /NaN|Infinity|[eE][+-]?\d{3}|\d{309}/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A whole JSON file as Python's json module writes it. Python writes NaN, Infinity and -Infinity
 * as bare tokens by default (allow_nan=True), which JSON.parse rejects, so one NaN stderr or
 * grad_norm would cost the whole file; JSON.parse also reads 1e999 as Infinity. Each becomes null
 * (a missing value: a reader that checks for numbers skips it without extra code) and is listed, so
 * the reader can say where. Anything else that is not JSON is a UserError at file:line:column naming
 * the field it stopped in.
 */
export function parsePythonJson(raw: string, file: string): { value: unknown; nonFinite: NonFiniteValue[] } {
  const text = stripBom(raw);
  const found = MAYBE_NON_FINITE.test(text) ? scanJson(text).nonFinite : [];
  // Placeholders of the same length keep JSON.parse's error offsets those of the file.
  let parsable = text;
  if (found.length) {
    const parts: string[] = [];
    let at = 0;
    for (const f of found) {
      parts.push(text.slice(at, f.offset), '0'.padEnd(f.token.length));
      at = f.offset + f.token.length;
    }
    parts.push(text.slice(at));
    parsable = parts.join('');
  }
  let value: unknown;
  try {
    value = JSON.parse(parsable);
  } catch (err) {
    throw pythonJsonError(err, text, parsable, file);
  }
  for (const f of found) value = setAt(value, f.path, null);
  return { value, nonFinite: found.map((f) => ({ field: fieldPath(f.path), line: f.line, token: f.token })) };
}

/** `parsable` is what JSON.parse read (`text` with placeholders), so that V8's unexpected token is found in it. */
function pythonJsonError(err: unknown, text: string, parsable: string, file: string): UserError {
  const { detail, offset } = jsonErrorDetail(err, parsable);
  if (text.trim() === '') return new UserError(`${where(file, 1)}: invalid JSON: the file is empty`, { file, line: 1 });
  const end = text.trimEnd().length;
  const at = offset ?? (detail === 'unexpected end of the record' ? end : undefined);
  if (at === undefined) return new UserError(`${file}: invalid JSON: ${detail}`, { file });
  const { path, line } = scanJson(text, at);
  const field = path.length ? fieldPath(path) : undefined;
  const place = { file, line, ...(field ? { field } : {}) };
  if (at >= end) {
    return new UserError(`${where(file, line)}: invalid JSON: the file ends${field ? ` inside field "${field}"` : ''} (cut short?)`, place);
  }
  const column = at - text.lastIndexOf('\n', at - 1);
  return new UserError(`${where(file, line, column)}: invalid JSON${field ? ` in field "${field}"` : ''}: ${detail}`, place);
}

type PathPart = string | number;
interface Found { offset: number; line: number; token: string; path: PathPart[] }
/** An open object (its current key, and whether a key comes next) or array (its current index). */
interface Frame { key: PathPart | undefined; keyNext: boolean }

const QUOTE = 34, BACKSLASH = 92, NEWLINE = 10, COLON = 58, COMMA = 44;
const LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93;

/** Word characters of bare tokens: letters, digits, + - . */
function inToken(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 45 || c === 46;
}

/**
 * One pass over JSON text (valid or not, up to `stop`) keeping only the path to where it is: the
 * non-finite tokens with their paths and lines, and the path and line at `stop`. JSON.parse does
 * the validating; this only has to agree with it on valid text.
 */
function scanJson(text: string, stop = text.length): { nonFinite: Found[]; path: PathPart[]; line: number } {
  const frames: Frame[] = [];
  const nonFinite: Found[] = [];
  // an object between entries (its next key not yet read) is where the path ends
  const path = (): PathPart[] => {
    const out: PathPart[] = [];
    for (const f of frames) {
      if (f.key === undefined || f.keyNext) break;
      out.push(f.key);
    }
    return out;
  };
  let line = 1;
  const end = Math.min(stop, text.length);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === NEWLINE) line++;
    else if (c === QUOTE) {
      let j = i + 1;
      for (; j < text.length && text.charCodeAt(j) !== QUOTE; j++) {
        if (text.charCodeAt(j) === BACKSLASH) j++;
        else if (text.charCodeAt(j) === NEWLINE) line++;
      }
      if (top?.keyNext && j < text.length) top.key = decodeKey(text.slice(i, j + 1));
      i = j;
    } else if (c === LBRACE) frames.push({ key: undefined, keyNext: true });
    else if (c === LBRACKET) frames.push({ key: 0, keyNext: false });
    else if (c === RBRACE || c === RBRACKET) frames.pop();
    else if (c === COLON) {
      if (top) top.keyNext = false;
    } else if (c === COMMA) {
      if (typeof top?.key === 'number') top.key++;
      else if (top) top.keyNext = true;
    } else if (inToken(c)) {
      let j = i + 1;
      while (j < text.length && inToken(text.charCodeAt(j))) j++;
      const token = text.slice(i, j);
      if (token === 'NaN' || token === 'Infinity' || token === '-Infinity' || (JSON_NUMBER.test(token) && !Number.isFinite(Number(token)))) {
        nonFinite.push({ offset: i, line, token, path: path() });
      }
      i = j - 1;
    }
  }
  return { nonFinite, path: path(), line };
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/** `results.wsc["acc,none"]`, `log_history[3].grad_norm`: dots where the key reads as a name. */
function fieldPath(path: readonly PathPart[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? `${i ? '.' : ''}${p}` : `[${JSON.stringify(p)}]`))
    .join('');
}

function setAt(root: unknown, path: readonly PathPart[], value: unknown): unknown {
  if (path.length === 0) return value;
  let holder = root as Record<PathPart, unknown> | null;
  for (const p of path.slice(0, -1)) holder = (holder?.[p] ?? null) as Record<PathPart, unknown> | null;
  if (typeof holder === 'object' && holder !== null) holder[path[path.length - 1]] = value;
  return root;
}
