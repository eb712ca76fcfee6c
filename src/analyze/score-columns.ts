// The scores a reading holds, as columns rather than an object per row: run, test set and metric as
// indices into lists of their names (each name kept once), step and value as numbers, where each
// score was read as an index into a list of places plus a number (a line), and each attribute (a
// long table's other columns: model, seed, a pandas index) as a column of its own, a whole number
// kept as itself and any other text as an index into that attribute's values. At 15M scores an
// object per row took ~0.85 KB of heap and ran out of memory at 4-5M; these columns take ~22 bytes
// a score (chunked-column.ts). A row object (ScoreRow) is made only when a caller asks for one.
import { UserError } from '../errors.ts';
import { ChunkedColumn } from './chunked-column.ts';
import { firstDuplicate, scoreIndex, type ScoreIndex } from './score-index.ts';
import type { ScoreRow } from './score-row.ts';

/** What a library caller's row must have: where it was read and the run's attributes may be left out. */
export type ScoreRowInput = Omit<ScoreRow, 'attributes' | 'origin'> & Partial<Pick<ScoreRow, 'attributes' | 'origin'>>;

/** Where rows were read: a text, or a text with a number in it ("file:" 12 "", "rows[" 3 "]"). */
interface Place { prefix: string; suffix: string; numbered: boolean }

/** An attribute's text as a code: 0 none, 2n + 1 the whole number n written plainly, 2k + 2 the attribute's k-th other text. */
const PLAIN_WHOLE = /^(?:0|[1-9]\d{0,14})$/;

class Names {
  readonly list: string[] = [];
  private ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(name);
      this.ids.set(name, id);
    }
    return id;
  }

  find(name: string): number | undefined {
    return this.ids.get(name);
  }

  rename(to: (name: string) => string): void {
    for (let i = 0; i < this.list.length; i++) this.list[i] = to(this.list[i]);
    this.ids = new Map(this.list.map((n, i) => [n, i]));
  }
}

export class ScoreColumns {
  private readonly runNames = new Names();
  private readonly setNames = new Names();
  private readonly metricNames = new Names();
  private readonly run = new ChunkedColumn();
  private readonly set = new ChunkedColumn();
  private readonly metric = new ChunkedColumn();
  private readonly step = new ChunkedColumn();
  private readonly value = new ChunkedColumn({ float: true });
  private readonly place = new ChunkedColumn();
  /**
   * A numbered place's number less the row's position, zigzagged (0, -1, 1, -2 -> 0, 1, 2, 3): a long
   * table's line is its row's position plus about 2, a byte, where the line itself took 4 at 15M rows.
   */
  private readonly placeNumber = new ChunkedColumn();
  private readonly n = new ChunkedColumn({ float: true, missing: Number.NaN });
  private readonly stderr = new ChunkedColumn({ float: true, missing: Number.NaN });
  /** Attribute names in the order first given, each with its column of codes and its texts. */
  private readonly attributeNames = new Names();
  private readonly attributes: { codes: ChunkedColumn; texts: Names }[] = [];
  private readonly places: Place[] = [];
  private readonly placeIds = new Map<string, number>();
  /** Run id -> the name it was read with, for renamed runs, and the attribute that name is kept in. */
  private readonly readAs: (string | undefined)[] = [];
  private readAsAttribute = '';
  private cachedIndex: ScoreIndex | undefined;

  get length(): number {
    return this.value.length;
  }

  /** The names, each once, in the order first read (a run's position is its id). */
  get runs(): readonly string[] { return this.runNames.list; }
  get testSets(): readonly string[] { return this.setNames.list; }
  get metrics(): readonly string[] { return this.metricNames.list; }
  /** Whether any score gives its n, or its stderr. */
  get anyN(): boolean { return this.n.any; }
  get anyStderr(): boolean { return this.stderr.any; }

  runId(name: string): number { return this.runNames.id(name); }
  testSetId(name: string): number { return this.setNames.id(name); }
  metricId(name: string): number { return this.metricNames.id(name); }
  findMetric(name: string): number | undefined { return this.metricNames.find(name); }

  /** An attribute's id (its column), made when first named. */
  attributeId(name: string): number {
    const id = this.attributeNames.id(name);
    if (id === this.attributes.length) this.attributes.push({ codes: new ChunkedColumn(), texts: new Names() });
    return id;
  }

  /** Sets row `i`'s attribute. */
  setAttribute(i: number, attribute: number, text: string): void {
    const a = this.attributes[attribute];
    a.codes.set(i, PLAIN_WHOLE.test(text) ? 2 * Number(text) + 1 : 2 * a.texts.id(text) + 2);
  }

  private attributeText(attribute: number, code: number): string {
    return code % 2 === 1 ? String((code - 1) / 2) : this.attributes[attribute].texts.list[(code - 2) / 2];
  }

  /** A place rows are read at: `prefix` alone, or with `suffix` given, prefix + the row's number + suffix. */
  placeId(prefix: string, suffix?: string): number {
    const key = `${suffix === undefined ? 't' : 'n'}${prefix}\u0000${suffix ?? ''}`;
    let id = this.placeIds.get(key);
    if (id === undefined) {
      id = this.places.length;
      this.places.push({ prefix, suffix: suffix ?? '', numbered: suffix !== undefined });
      this.placeIds.set(key, id);
    }
    return id;
  }

  /** Appends a score given by ids (runId, testSetId, metricId, placeId); returns its row number. */
  push(run: number, step: number, testSet: number, metric: number, value: number, place: number, placeNumber = 0): number {
    const i = this.value.length;
    this.run.push(run);
    this.step.push(step);
    this.set.push(testSet);
    this.metric.push(metric);
    this.value.push(value);
    this.place.push(place);
    const offset = this.places[place].numbered ? placeNumber - i : 0;
    this.placeNumber.push(offset >= 0 ? 2 * offset : -2 * offset - 1);
    this.cachedIndex = undefined;
    return i;
  }

  setN(row: number, n: number): void { this.n.set(row, n); }
  setStderr(row: number, stderr: number): void { this.stderr.set(row, stderr); }

  /**
   * Where a file's record is, as rowWhere (data/readers/row.ts) names it ("file:line", else "file (row N)"),
   * with `suffix` after it (a wide table's column).
   */
  recordPlace(file: string, at: { index: number; line?: number }, suffix = ''): { place: number; number: number } {
    return at.line !== undefined ? { place: this.placeId(`${file}:`, suffix), number: at.line }
      : { place: this.placeId(`${file} (row `, `)${suffix}`), number: at.index + 1 };
  }

  /** Appends a row object; one without an origin is placed as "rows[<i>]" with i = `position`. */
  addRow(row: ScoreRowInput, position = this.length): number {
    return row.origin === undefined ? this.addRowAt(row, this.placeId('rows[', ']'), position) : this.addRowAt(row, this.placeId(row.origin));
  }

  /** Appends a row object read at a place (its own origin not kept: the place says it). */
  addRowAt(row: ScoreRowInput, place: number, placeNumber = 0): number {
    const i = this.push(this.runId(row.run), row.step, this.testSetId(row.testSet), this.metricId(row.metric), row.value, place, placeNumber);
    for (const [name, text] of Object.entries(row.attributes ?? {})) this.setAttribute(i, this.attributeId(name), text);
    if (row.n !== undefined) this.n.set(i, row.n);
    if (row.stderr !== undefined) this.stderr.set(i, row.stderr);
    return i;
  }

  static fromRows(rows: readonly ScoreRowInput[]): ScoreColumns {
    const out = new ScoreColumns();
    rows.forEach((row, i) => out.addRow(row, i));
    return out;
  }

  runOf(i: number): number { return this.run.get(i); }
  testSetOf(i: number): number { return this.set.get(i); }
  metricOf(i: number): number { return this.metric.get(i); }
  stepOf(i: number): number { return this.step.get(i); }
  valueOf(i: number): number { return this.value.get(i); }
  /** The score's n / stderr, or undefined when the input did not give one. */
  nOf(i: number): number | undefined { const v = this.n.get(i); return Number.isNaN(v) ? undefined : v; }
  stderrOf(i: number): number | undefined { const v = this.stderr.get(i); return Number.isNaN(v) ? undefined : v; }

  originOf(i: number): string {
    const p = this.places[this.place.get(i)];
    if (!p.numbered) return p.prefix;
    const code = this.placeNumber.get(i);
    return `${p.prefix}${i + (code % 2 === 0 ? code / 2 : -(code + 1) / 2)}${p.suffix}`;
  }

  /** The row's attributes (a fresh object), a renamed run's name as read first among them. */
  attributesOf(i: number): Record<string, string> {
    const readAs = this.readAs[this.run.get(i)];
    const out: Record<string, string> = readAs === undefined ? {} : { [this.readAsAttribute]: readAs };
    this.attributes.forEach((a, k) => {
      const code = a.codes.get(i);
      if (code !== 0) out[this.attributeNames.list[k]] = this.attributeText(k, code);
    });
    return out;
  }

  /**
   * Each run's attributes, those of its rows that `keep` accepts merged in the order read (as
   * Object.assign over the rows would: a later row's text wins, a name stays where first given),
   * without a row object: per run and attribute, the first and the last row that gives it.
   */
  mergedAttributes(keep: (i: number) => boolean = () => true): Map<number, Record<string, string>> {
    const runs = this.runNames.list.length, count = this.attributes.length;
    const first = new Float64Array(runs * count).fill(Infinity), last = new Float64Array(runs * count);
    const seen = new Uint8Array(runs);
    for (let i = 0; i < this.length; i++) {
      if (!keep(i)) continue;
      const run = this.run.get(i);
      seen[run] = 1;
      for (let k = 0; k < count; k++) {
        if (this.attributes[k].codes.get(i) === 0) continue;
        const at = run * count + k;
        if (first[at] === Infinity) first[at] = i;
        last[at] = i;
      }
    }
    const out = new Map<number, Record<string, string>>();
    for (let run = 0; run < runs; run++) {
      if (!seen[run]) continue;
      const readAs = this.readAs[run];
      const merged: Record<string, string> = readAs === undefined ? {} : { [this.readAsAttribute]: readAs };
      const given = [...Array(count).keys()].filter((k) => first[run * count + k] !== Infinity)
        .sort((a, b) => first[run * count + a] - first[run * count + b] || a - b);
      for (const k of given) merged[this.attributeNames.list[k]] = this.attributeText(k, this.attributes[k].codes.get(last[run * count + k]));
      out.set(run, merged);
    }
    return out;
  }

  row(i: number): ScoreRow {
    const out: ScoreRow = {
      run: this.runNames.list[this.run.get(i)], step: this.step.get(i), testSet: this.setNames.list[this.set.get(i)],
      metric: this.metricNames.list[this.metric.get(i)], value: this.value.get(i), attributes: this.attributesOf(i), origin: this.originOf(i),
    };
    const n = this.nOf(i), stderr = this.stderrOf(i);
    if (n !== undefined) out.n = n;
    if (stderr !== undefined) out.stderr = stderr;
    return out;
  }

  /** Every row as an object, in the order read: for library callers; the analysis reads the columns. */
  rows(): ScoreRow[] {
    return Array.from({ length: this.length }, (_, i) => this.row(i));
  }

  /**
   * Renames runs in place (`to` maps every name, unchanged ones to themselves; no two to one name):
   * a renamed run's rows carry the name they were read with in `attribute`.
   */
  renameRuns(to: ReadonlyMap<string, string>, attribute: string): void {
    this.readAsAttribute = attribute;
    this.runNames.list.forEach((name, id) => {
      const renamed = to.get(name) ?? name;
      if (renamed !== name) this.readAs[id] ??= name;
    });
    this.runNames.rename((name) => to.get(name) ?? name);
  }

  /** The rows grouped by run, metric and test set, each group in step order (score-index.ts); made once. */
  index(): ScoreIndex {
    return (this.cachedIndex ??= scoreIndex(this));
  }

  /** A (run, step, test set, metric) given twice is an error, naming the first repeat in the order read; `metric` checks that metric's only. */
  refuseDuplicates(metric?: number): void {
    const index = this.index();
    const dup = firstDuplicate(this, index, metric === undefined ? undefined : (g) => index.groupMetric[g] === metric);
    if (dup === undefined) return;
    const row = this.row(dup.row);
    throw new UserError(`${row.origin}: duplicate score for run "${row.run}", step ${row.step}, test set "${row.testSet}", metric ` +
      `"${row.metric}" (first given at ${this.originOf(dup.earlier)})`);
  }

  /** Bytes the columns hold, for the benches. */
  bytes(): number {
    return [this.run, this.set, this.metric, this.step, this.value, this.place, this.placeNumber, this.n, this.stderr,
      ...this.attributes.map((a) => a.codes)].reduce((s, c) => s + c.bytes(), 0);
  }
}
