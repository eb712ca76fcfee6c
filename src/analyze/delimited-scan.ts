// A score table's CSV / TSV read fast: the file in 1 MB pieces of text, each record handed on as
// the positions of its fields in that text, so that 15M rows make no object per row (csv-parse made
// a record object per row and took 6-7 us a row with line numbers). It reads the plain files score
// tables are: one line per record, quoted fields without line breaks (RFC 4180's "" inside them),
// one kind of line ending. Anything else (a ragged row, a stray or unclosed quote, a line break in a
// quoted field, mixed line endings, a read error) throws NotPlain, and the caller reads the file
// through csv-parse (data/readers/csv.ts) instead: that reader's records, line numbers and error
// wording stay the one definition, and this scanner must agree with it on every file it reads
// (test/analyze/delimited-scan.test.ts compares the two).
import { createReadStream } from 'node:fs';
import { restoreFormula } from '../csv-formula.ts';
import { checkHeader } from '../data/readers/csv.ts';
import { isGzip, openStream } from '../data/readers/open.ts';

/** The file is not one this scanner reads as csv-parse would: read it with csv-parse. */
export class NotPlain extends Error {}

/** One record: field k is `text` from `start[k]` to `end[k]`, or `unescaped[k]` where a quoted field held "". */
export interface FieldView {
  text: string;
  start: Int32Array;
  end: Int32Array;
  unescaped: (string | undefined)[];
  /** 1-based line of the record; 0-based position among the records. */
  line: number;
  index: number;
}

export function fieldText(view: FieldView, k: number): string {
  return view.unescaped[k] ?? view.text.slice(view.start[k], view.end[k]);
}

/** The record as csv-parse's reader gives it: each column's text, a leading ' before a formula taken off (csv-formula.ts). */
export function recordOf(view: FieldView, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  names.forEach((name, k) => { values[name] = restoreFormula(fieldText(view, k)); });
  return values;
}

export interface DelimitedSink {
  /** The header row's names, checked as csv-parse's reader checks them (a pandas index column named "index"). */
  header(names: string[]): void;
  record(view: FieldView): void;
}

const LF = 10, CR = 13, QUOTE = 34;
const PIECE = 1 << 20;
const LONGEST_RECORD = 1 << 24;

/** Reads `file` into `sink`; throws NotPlain (before or after some records) where csv-parse must read it. */
export async function scanDelimited(file: string, opts: { delimiter: string; quote: boolean }, sink: DelimitedSink): Promise<void> {
  const stream = isGzip(file) ? openStream(file) : createReadStream(file, { highWaterMark: PIECE });
  stream.setEncoding('utf8');
  const scanner = new Scanner(file, opts.delimiter.charCodeAt(0), opts.quote, sink);
  try {
    for await (const piece of stream) scanner.feed(piece as string, false);
  } catch (err) {
    if (err instanceof NotPlain) throw err;
    // an unreadable file, bad gzip data, an error from the sink: csv-parse's reader says it in its words
    throw err instanceof Error && 'code' in err ? new NotPlain((err as Error).message) : err;
  } finally {
    stream.destroy();
  }
  scanner.feed('', true);
}

class Scanner {
  private carry = '';
  private first = true;
  /** The line ending the first line set: csv-parse keeps to it for the whole file. */
  private crlf: boolean | undefined;
  private line = 1;
  private index = 0;
  private names: string[] | undefined;
  private view: FieldView = { text: '', start: new Int32Array(16), end: new Int32Array(16), unescaped: [], line: 0, index: 0 };

  constructor(private readonly file: string, private readonly delimiter: number, private readonly quote: boolean,
    private readonly sink: DelimitedSink) {}

  feed(piece: string, last: boolean): void {
    let text = this.carry + piece;
    if (this.first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    let pos = 0;
    const n = text.length;
    // where the next quote and carriage return are (n: none in this piece), found again only once passed
    let nextQuote = -1, nextCR = -1;
    while (pos < n) {
      let next = -1;
      const lf = text.indexOf('\n', pos);
      if (lf > pos) {
        if (nextQuote < pos) nextQuote = this.quote ? text.indexOf('"', pos) : n;
        if (nextQuote < 0) nextQuote = n;
        if (nextCR < pos) nextCR = text.indexOf('\r', pos);
        if (nextCR < 0) nextCR = n;
        if (nextQuote > lf && (nextCR > lf || nextCR === lf - 1)) next = this.plainRecordAt(text, pos, lf, nextCR === lf - 1);
      }
      if (next < 0) next = this.recordAt(text, pos, last);
      if (next < 0) break; // the record runs past this piece
      pos = next;
    }
    this.carry = text.slice(pos);
    if (last && this.carry !== '') throw new NotPlain('the last record did not end');
    // a record is scanned again from its start with each piece: one this long is csv-parse's to read
    if (this.carry.length > LONGEST_RECORD) throw new NotPlain('a record longer than 16M characters');
  }

  /**
   * The record of the line from `pos` to the line feed at `lf` (after a carriage return when `crlf`),
   * which holds no quote and no other carriage return: its fields split at each delimiter, as
   * recordAt would, without recordAt's test of every character for a quote and a line end (its
   * searches run once per piece; the 630,000 records of 30 x 20 x 1000 scanned in 105-120 CPU-ms
   * where recordAt took 170-190). An empty line is left to recordAt (-1).
   */
  private plainRecordAt(text: string, pos: number, lf: number, crlf: boolean): number {
    const end = crlf ? lf - 1 : lf;
    if (end === pos) return -1;
    if (this.crlf === !crlf) this.notPlain('mixed line endings');
    this.crlf = crlf;
    const view = this.view, delimiter = this.delimiter;
    let count = 0, from = pos;
    for (let p = pos; p < end; p++) {
      if (text.charCodeAt(p) !== delimiter) continue;
      if (count + 1 >= view.start.length) this.grow();
      view.start[count] = from;
      view.end[count] = p;
      view.unescaped[count] = undefined;
      count++;
      from = p + 1;
    }
    if (count + 1 >= view.start.length) this.grow();
    view.start[count] = from;
    view.end[count] = end;
    view.unescaped[count] = undefined;
    return this.handOn(text, count + 1, this.line++, lf + 1);
  }

  /** The record of `count` fields in the view, on `line`: the header, or a record for the sink. Returns `next`. */
  private handOn(text: string, count: number, line: number, next: number): number {
    const view = this.view;
    view.text = text;
    if (this.names === undefined) {
      this.names = checkHeader(this.file, Array.from({ length: count }, (_, k) => fieldText(view, k)));
      this.sink.header(this.names);
      return next;
    }
    if (count !== this.names.length) this.notPlain('a ragged row');
    view.line = line;
    view.index = this.index++;
    this.sink.record(view);
    return next;
  }

  /** Reads the record at `pos`; returns where the next one starts, or -1 when the piece ends inside it and more is coming. */
  private recordAt(text: string, pos: number, last: boolean): number {
    const view = this.view, delimiter = this.delimiter, n = text.length;
    let count = 0, p = pos, quotedAny = false;
    for (;;) {
      if (count === view.start.length) this.grow();
      let c = text.charCodeAt(p);
      if (this.quote && c === QUOTE) {
        quotedAny = true;
        let q = p + 1, escaped = false, close = -1;
        while (close < 0) {
          const j = text.indexOf('"', q);
          if (j < 0 || (j + 1 === n && !last)) return last ? this.notPlain('a quoted field is not closed') : -1;
          if (text.charCodeAt(j + 1) === QUOTE) { escaped = true; q = j + 2; } else close = j;
        }
        const inner = text.slice(p + 1, close);
        if (inner.includes('\n') || inner.includes('\r')) this.notPlain('a line break inside a quoted field');
        view.start[count] = p + 1;
        view.end[count] = close;
        view.unescaped[count] = escaped ? inner.replaceAll('""', '"') : undefined;
        p = close + 1;
        c = text.charCodeAt(p);
        if (p < n && c !== delimiter && c !== LF && c !== CR) this.notPlain('text after a closing quote');
      } else {
        const from = p;
        while (p < n && c !== delimiter && c !== LF && c !== CR) {
          if (this.quote && c === QUOTE) this.notPlain('a quote inside an unquoted field');
          c = text.charCodeAt(++p);
        }
        view.start[count] = from;
        view.end[count] = p;
        view.unescaped[count] = undefined;
      }
      count++;
      if (p >= n) {
        if (!last) return -1;
        break;
      }
      if (c === delimiter) { p++; continue; }
      break;
    }
    // the line ending: the first one found sets it for the file
    let next = p;
    if (p < n) {
      const c = text.charCodeAt(p);
      if (c === CR) {
        if (p + 1 >= n && !last) return -1;
        if (text.charCodeAt(p + 1) !== LF) this.notPlain('a carriage return without a line feed');
        if (this.crlf === false) this.notPlain('mixed line endings');
        this.crlf = true;
        next = p + 2;
      } else {
        if (this.crlf === true) this.notPlain('mixed line endings');
        this.crlf = false;
        next = p + 1;
      }
    }
    const line = this.line++;
    const empty = count === 1 && !quotedAny && view.start[0] === view.end[0];
    if (empty) return next;
    return this.handOn(text, count, line, next);
  }

  private grow(): void {
    const start = new Int32Array(this.view.start.length * 2), end = new Int32Array(this.view.end.length * 2);
    start.set(this.view.start);
    end.set(this.view.end);
    this.view.start = start;
    this.view.end = end;
  }

  private notPlain(why: string): never {
    throw new NotPlain(why);
  }
}
