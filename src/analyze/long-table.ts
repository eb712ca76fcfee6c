// A long score table (columns run, step, test_set, metric, value; a score's n and stderr from the
// columns score-row.ts names; any other column an attribute of the run) read into score columns, one
// record at a time. A record comes either as an object (JSON Lines, a JSON array, csv-parse) and is
// read by score-row.ts's rules, or as field positions from the scanner (delimited-scan.ts): a row
// whose cells are plain (names that start with a printable ASCII character, a step of digits, a value in
// decimal notation within range, an n of digits) is read from the positions without an object, and
// any other row is made an object and read by the same rules, so both give the same scores, notes
// and errors. A missing value (empty, NaN) is a missing score, counted in one note.
import { UserError } from '../errors.ts';
import { rowWhere } from '../data/readers/index.ts';
import { fieldText, recordOf, type FieldView } from './delimited-scan.ts';
import type { ScoreColumns } from './score-columns.ts';
import { scoreReading, type ScoreReading } from './score-reading.ts';
import { isFractionMetric, isMissingValue, N_COLUMNS, REQUIRED_COLUMNS, scoreRowFromRecord, STDERR_COLUMNS } from './score-row.ts';

const NOT_ATTRIBUTES: readonly string[] = [...REQUIRED_COLUMNS, ...N_COLUMNS, ...STDERR_COLUMNS];
const APOSTROPHE = 39, ZERO = 48, NINE = 57, DOT = 46, PLUS = 43, MINUS = 45, LOWER_E = 101, UPPER_E = 69;

/** Where the scanner's fields go: the required columns' positions, the n and stderr columns in order of preference, the attributes. */
interface Positions {
  run: number; step: number; testSet: number; metric: number; value: number;
  n: number[]; stderr: number[]; attributes: { field: number; id: number }[];
}

/** The last name read in a column and its id: consecutive rows mostly repeat the run and the metric. */
interface LastName { text: string; id: number }

export class LongTable {
  private missing = 0;
  private firstMissing = '';
  private readonly positions: Positions | undefined;
  private readonly names: readonly string[];
  private readonly last = { run: { text: '', id: -1 }, testSet: { text: '', id: -1 }, metric: { text: '', id: -1 } };
  private readonly fraction: boolean[] = [];
  private readonly sample = { n: 0, stderr: -1 };
  /** "file:" + the line: where a scanned row is. */
  private readonly linePlace: number;

  /** `columns`: the table's column names (a CSV's header, the first JSON record's keys). */
  constructor(private readonly file: string, private readonly scores: ScoreColumns, columns: readonly string[]) {
    this.names = columns;
    this.linePlace = scores.placeId(`${file}:`, '');
    // attributes take the columns' order, whichever row gives one first
    const attributes = columns.flatMap((c, k) => (NOT_ATTRIBUTES.includes(c) ? [] : [{ field: k, id: scores.attributeId(c) }]));
    const at = (c: string) => columns.indexOf(c);
    this.positions = REQUIRED_COLUMNS.every((c) => at(c) >= 0) ? {
      run: at('run'), step: at('step'), testSet: at('test_set'), metric: at('metric'), value: at('value'),
      n: N_COLUMNS.map(at).filter((k) => k >= 0), stderr: STDERR_COLUMNS.map(at).filter((k) => k >= 0), attributes,
    } : undefined;
  }

  /** One record as an object: score-row.ts's rules, a missing value counted. */
  record(values: Record<string, unknown>, at: { index: number; line?: number }): void {
    if ('value' in values && isMissingValue(values.value)) {
      if (this.missing++ === 0) this.firstMissing = rowWhere(this.file, at);
      return;
    }
    const row = scoreRowFromRecord(values, rowWhere(this.file, at));
    const { place, number } = this.scores.recordPlace(this.file, at);
    this.scores.addRowAt(row, place, number);
  }

  /** One record from the scanner: read from the positions when every cell is plain, else as an object. */
  fields(view: FieldView): void {
    if (!this.plainRow(view)) this.record(recordOf(view, this.names), view);
  }

  /** The reading, once every record is in. */
  finish(): ScoreReading {
    const notes = this.missing ? [
      `${this.file}: ${this.missing} row(s) with an empty or NaN value read as missing scores (first at ${this.firstMissing})`] : [];
    if (this.scores.length === 0) throw new UserError(`${this.file}: every value is empty or NaN`);
    return scoreReading({ scores: this.scores, description: 'long table; run, step, test set and metric from columns run, step, test_set, metric',
      notes });
  }

  /**
   * Adds the row when all its cells are plain; false (nothing added) otherwise. The names are
   * interned last, once the value is known not to be missing: a run or test set whose every score is
   * missing is not among the reading's names.
   */
  private plainRow(view: FieldView): boolean {
    const p = this.positions;
    if (p === undefined) return false;
    const step = digits(view, p.step);
    const value = decimal(view, p.value);
    if (step < 0 || Number.isNaN(value) || !this.sampling(view, p)) return false;
    for (const a of p.attributes) if (firstCode(view, a.field) === APOSTROPHE) return false;
    const run = this.nameId(view, p.run, this.last.run, (s) => this.scores.runId(s));
    const testSet = run < 0 ? -1 : this.nameId(view, p.testSet, this.last.testSet, (s) => this.scores.testSetId(s));
    const metric = testSet < 0 ? -1 : this.nameId(view, p.metric, this.last.metric, (s) => this.scores.metricId(s));
    if (metric < 0) return false;
    this.fraction[metric] ??= isFractionMetric(this.scores.metrics[metric]);
    if (this.fraction[metric] && (value < 0 || value > 1)) return false;
    const i = this.scores.push(run, step, testSet, metric, value, this.linePlace, view.line);
    if (this.sample.n > 0) this.scores.setN(i, this.sample.n);
    if (this.sample.stderr >= 0) this.scores.setStderr(i, this.sample.stderr);
    for (const a of p.attributes) {
      if (empty(view, a.field)) continue;
      this.scores.setAttribute(i, a.id, fieldText(view, a.field));
    }
    return true;
  }

  /** The row's n (the first n column not empty) and stderr, into this.sample (0 / -1: none); false when either is not plain. */
  private sampling(view: FieldView, p: Positions): boolean {
    this.sample.n = 0;
    this.sample.stderr = -1;
    for (const k of p.n) {
      if (empty(view, k)) continue;
      const n = digits(view, k);
      if (n < 1) return false;
      this.sample.n = n;
      break;
    }
    for (const k of p.stderr) {
      if (empty(view, k)) continue;
      const se = decimal(view, k);
      if (!(se >= 0)) return false;
      this.sample.stderr = se;
      break;
    }
    return true;
  }

  /** The name's id, or -1 when the cell is not plain (empty, starting with a space, a quote mark or a character past ASCII). */
  private nameId(view: FieldView, k: number, last: LastName, id: (name: string) => number): number {
    const quoted = view.unescaped[k];
    const text = quoted ?? view.text;
    const from = quoted === undefined ? view.start[k] : 0, to = quoted === undefined ? view.end[k] : quoted.length;
    if (to === from) return -1;
    const c = text.charCodeAt(from);
    if (c <= 32 || c >= 127 || c === APOSTROPHE) return -1;
    if (to - from === last.text.length && text.startsWith(last.text, from)) return last.id;
    last.text = text.slice(from, to);
    last.id = id(last.text);
    return last.id;
  }
}

/** The cell's first character code (NaN for an empty cell). */
function firstCode(view: FieldView, k: number): number {
  const quoted = view.unescaped[k];
  if (quoted !== undefined) return quoted.charCodeAt(0);
  return view.start[k] === view.end[k] ? Number.NaN : view.text.charCodeAt(view.start[k]);
}

function empty(view: FieldView, k: number): boolean {
  return view.unescaped[k] === undefined ? view.start[k] === view.end[k] : view.unescaped[k] === '';
}

/** A cell of 1-15 digits as its number, else -1. */
function digits(view: FieldView, k: number): number {
  if (view.unescaped[k] !== undefined) return -1;
  const { text } = view, from = view.start[k], to = view.end[k];
  if (to === from || to - from > 15) return -1;
  let n = 0;
  for (let p = from; p < to; p++) {
    const c = text.charCodeAt(p);
    if (c < ZERO || c > NINE) return -1;
    n = n * 10 + (c - ZERO);
  }
  return n;
}

/** 10^0 ... 10^22, each exactly a double. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/** A cell in decimal notation without spaces (score-row.ts's DECIMAL) as its finite number, else NaN. */
function decimal(view: FieldView, k: number): number {
  if (view.unescaped[k] !== undefined) return Number.NaN;
  const { text } = view, to = view.end[k];
  let p = view.start[k];
  let c = text.charCodeAt(p);
  const negative = c === MINUS;
  if (c === PLUS || c === MINUS) c = text.charCodeAt(++p);
  // the digits as a whole number too, and how many follow the point
  let mantissa = 0, whole = 0, fraction = 0;
  while (p < to && c >= ZERO && c <= NINE) { mantissa++; whole = whole * 10 + (c - ZERO); c = text.charCodeAt(++p); }
  if (p < to && c === DOT) {
    c = text.charCodeAt(++p);
    while (p < to && c >= ZERO && c <= NINE) { mantissa++; fraction++; whole = whole * 10 + (c - ZERO); c = text.charCodeAt(++p); }
  }
  if (mantissa === 0) return Number.NaN;
  let exponent = false;
  if (p < to && (c === LOWER_E || c === UPPER_E)) {
    exponent = true;
    c = text.charCodeAt(++p);
    if (c === PLUS || c === MINUS) c = text.charCodeAt(++p);
    let digits = 0;
    while (p < to && c >= ZERO && c <= NINE) { digits++; c = text.charCodeAt(++p); }
    if (digits === 0) return Number.NaN;
  }
  if (p !== to) return Number.NaN;
  // At most 15 digits are a whole number below 2^53, exact as the sum above, and 10^fraction is exact:
  // their quotient is one correctly rounded division, the double nearest the decimal, which is what
  // Number() gives (Clinger's fast path). Anything else (an exponent, more digits) is Number()'s.
  if (!exponent && mantissa <= 15) return negative ? -(whole / POWERS_OF_TEN[fraction]) : whole / POWERS_OF_TEN[fraction];
  const v = Number(text.slice(view.start[k], to));
  return Number.isFinite(v) ? v : Number.NaN;
}
