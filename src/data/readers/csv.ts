// CSV (RFC 4180 quoting) and TSV, streamed through csv-parse. The first row is the header.
// TSV defaults to no quoting: GLUE-style TSV files contain bare `"` characters inside fields.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parse, CsvError } from 'csv-parse';
import { UserError, where } from '../../errors.ts';
import { fileError, isGzip, openStream } from './open.ts';
import type { SourceRow } from './row.ts';
import { restoreFormula } from '../../csv-formula.ts';

export interface DelimitedOptions {
  delimiter: string;
  quote: boolean;
  /** Keep a leading ' before a formula character (see ReadOptions.verbatim). */
  verbatim?: boolean;
}

export async function* readDelimited(file: string, opts: DelimitedOptions): AsyncGenerator<SourceRow> {
  const input = openStream(file);
  const parser = parse({
    delimiter: opts.delimiter,
    quote: opts.quote ? '"' : false,
    bom: true,
    skip_empty_lines: true,
    info: true,
    columns: (header: string[]) => checkHeader(file, header),
  });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let index = 0;
  // csv-parse's info.lines is the line where a record ends, but it counts a CRLF inside a quoted
  // field as two lines; take those back out, then step back over the field's own line breaks.
  let overcount = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      let newlines = 0;
      for (const v of Object.values(record)) {
        newlines += occurrences(v, '\n');
        overcount += occurrences(v, '\r\n');
      }
      if (!opts.verbatim) for (const [k, v] of Object.entries(record)) record[k] = restoreFormula(v);
      yield { index: index++, line: info.lines - overcount - newlines, values: record };
    }
  } catch (err) {
    throw describeCsvError(file, err, opts);
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/** The header row's names checked (none empty, none twice), pandas' unnamed index column named "index". */
export function checkHeader(file: string, header: string[]): string[] {
  const seen = new Set<string>();
  // pandas' to_csv writes its index as a first column with an empty name
  if (header.length > 1 && header[0] === '' && !header.includes('index')) header = ['index', ...header.slice(1)];
  header.forEach((name, k) => {
    if (name === '') throw new UserError(`${where(file, 1)}: column ${k + 1} of the header row has no name`);
    if (seen.has(name)) throw new UserError(`${where(file, 1)}: the header row names column "${name}" twice`);
    seen.add(name);
  });
  return header;
}

function describeCsvError(file: string, err: unknown, opts: DelimitedOptions): Error {
  if (err instanceof UserError) return err;
  if (err instanceof CsvError) {
    const e = err as CsvError & { lines?: number; record?: unknown[]; columns?: unknown[] };
    const line = e.lines;
    switch (e.code) {
      case 'CSV_RECORD_INCONSISTENT_COLUMNS':
      case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
        const got = Array.isArray(e.record) ? e.record.length : '?';
        const want = /columns length is (\d+)/.exec(e.message)?.[1] ?? '?';
        return new UserError(`${where(file, line)}: row has ${got} fields, expected ${want} as in the header (ragged row)`);
      }
      case 'CSV_QUOTE_NOT_CLOSED':
        // csv-parse reports the end of the file, where it gave up; the user needs where the quote opened
        return new UserError(`${where(file, opts.quote ? openingQuoteLine(file) ?? line : line)}: a quoted field is never closed: it ` +
          `opens on this line (expected a closing '"')`);
      case 'CSV_INVALID_CLOSING_QUOTE':
        return new UserError(`${where(file, line)}: unexpected character after a closing quote; expected "${printable(opts.delimiter)}" ` +
          `or the end of the line (use quote: false for files without quoting)`);
      default:
        return new UserError(`${where(file, line)}: ${e.message}`);
    }
  }
  return fileError(file, err as NodeJS.ErrnoException);
}

/** The line of the quote left open at the end of the file (RFC 4180: "" inside quotes is a quote). */
function openingQuoteLine(file: string): number | undefined {
  let text: string;
  try {
    const bytes = readFileSync(file);
    text = (isGzip(file) ? gunzipSync(bytes) : bytes).toString('utf8');
  } catch {
    return undefined;
  }
  let line = 1;
  let openedAt: number | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '"') {
      if (openedAt === undefined) openedAt = line;
      else if (text[i + 1] === '"') i++;
      else openedAt = undefined;
    }
  }
  return openedAt;
}

function printable(delimiter: string): string {
  return delimiter === '\t' ? '\\t' : delimiter;
}

function occurrences(text: string, what: string): number {
  let n = 0;
  for (let k = text.indexOf(what); k >= 0; k = text.indexOf(what, k + what.length)) n++;
  return n;
}
