// JSON array of objects. The whole file is read (JSON arrays cannot be split safely without a
// scanner), but each record is parsed on its own so an error can name the record's line: a short
// scan finds where each top-level element starts and ends, then JSON.parse reads that slice.
import { UserError, where } from '../../errors.ts';
import { readText } from './open.ts';
import { jsonErrorDetail, stripBom } from '../../json-text.ts';
import type { SourceRow } from './row.ts';

const QUOTE = 34, BACKSLASH = 92, LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93, COMMA = 44, NL = 10;

export async function* readJsonArray(file: string): AsyncGenerator<SourceRow> {
  const text = stripBom(await readText(file));
  yield* scanJsonArray(file, text);
}

export function* scanJsonArray(file: string, text: string): Generator<SourceRow> {
  const n = text.length;
  let i = 0;
  let line = 1;
  const skipWhitespace = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === NL) line++;
      else if (c !== 32 && c !== 9 && c !== 13) break;
      i++;
    }
  };
  skipWhitespace();
  if (text.charCodeAt(i) !== LBRACKET) {
    const found = i < n ? `"${text[i]}"` : 'an empty file';
    throw new UserError(`${where(file, line)}: expected a JSON array of objects ("[" ...) or JSON Lines, found ${found}`);
  }
  i++;
  skipWhitespace();
  if (text.charCodeAt(i) === RBRACKET) {
    i++;
  } else {
    for (let index = 0; ; index++) {
      skipWhitespace();
      const start = i;
      const startLine = line;
      let depth = 0;
      // Find the end of one element: the first "," or "]" outside strings at nesting depth 0.
      scan: while (i < n) {
        const c = text.charCodeAt(i);
        switch (c) {
          case QUOTE:
            i++;
            while (i < n) {
              const d = text.charCodeAt(i);
              if (d === BACKSLASH) i += 2;
              else if (d === QUOTE) break;
              else {
                if (d === NL) line++;
                i++;
              }
            }
            break;
          case LBRACE:
          case LBRACKET:
            depth++;
            break;
          case RBRACE:
          case RBRACKET:
            if (depth === 0) break scan;
            depth--;
            break;
          case COMMA:
            if (depth === 0) break scan;
            break;
          case NL:
            line++;
            break;
        }
        i++;
      }
      if (i >= n) {
        throw new UserError(`${where(file, line)}: unexpected end of file inside the JSON array (record ${index + 1} starts at line ` +
          `${startLine}); expected "]"`);
      }
      const slice = text.slice(start, i);
      let value: unknown;
      try {
        value = JSON.parse(slice);
      } catch (err) {
        const { detail, offset } = jsonErrorDetail(err, slice);
        const at = offset === undefined ? where(file, startLine) : locate(file, slice, offset, startLine, text, start);
        throw new UserError(`${at}: invalid JSON in record ${index + 1}: ${detail}`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
        throw new UserError(`${where(file, startLine)}: record ${index + 1} is ${kind}, expected an object`);
      }
      yield { index, line: startLine, values: value as Record<string, unknown> };
      if (text.charCodeAt(i) === COMMA) {
        i++;
        continue;
      }
      i++; // the closing "]"
      break;
    }
  }
  skipWhitespace();
  if (i < n) throw new UserError(`${where(file, line)}: unexpected text after the closing "]" of the JSON array`);
}

/** file:line:column of an offset inside one record's slice. */
function locate(file: string, slice: string, offset: number, startLine: number, text: string, sliceStart: number): string {
  let line = startLine;
  let lineStart = -1;
  for (let k = 0; k < offset && k < slice.length; k++) {
    if (slice.charCodeAt(k) === NL) {
      line++;
      lineStart = k;
    }
  }
  // Column counts from the start of the physical line, which may begin before the slice.
  let column: number;
  if (lineStart >= 0) column = offset - lineStart;
  else {
    const prevNl = text.lastIndexOf('\n', sliceStart - 1);
    column = sliceStart - prevNl + offset;
  }
  return where(file, line, column);
}
