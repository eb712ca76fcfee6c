// A score table file (CSV, TSV, JSON Lines, a JSON array; gzipped or not) read into score columns:
// long (long-table.ts) or wide (wide-table.ts) as its columns say. A CSV or TSV is scanned
// (delimited-scan.ts) and read again through csv-parse only when the scanner cannot read it as
// csv-parse would; every other format is read record by record through data/readers. Whatever is
// wrong with the file's structure (a ragged row, a broken quote or JSON line) is the error before
// anything wrong in its cells, and an empty file before either, as when the records were all read
// first: an error in a cell is kept and raised only once the whole file has been read.
import { UserError } from '../errors.ts';
import { formatOf, readRows } from '../data/readers/index.ts';
import { NotPlain, recordOf, scanDelimited, type DelimitedSink, type FieldView } from './delimited-scan.ts';
import { LongTable } from './long-table.ts';
import { ScoreColumns } from './score-columns.ts';
import type { ScoreReading } from './score-reading.ts';
import { checkDelimiter } from './table-delimiter.ts';
import { isWideHeader, parseColumnMap, WideTable } from './wide-table.ts';

/** `columns`: --columns, a wide table's "column=test_set:metric" mapping. */
export async function readScoreTable(file: string, columns: readonly string[] | undefined): Promise<ScoreReading> {
  await checkDelimiter(file);
  const format = formatOf(file);
  if (format === 'csv' || format === 'tsv') {
    const table = new TableRows(file, columns);
    try {
      await scanDelimited(file, format === 'csv' ? { delimiter: ',', quote: true } : { delimiter: '\t', quote: false }, table);
      return table.finish();
    } catch (err) {
      if (!(err instanceof NotPlain)) throw err;
    }
  }
  return readScoreRecords(file, columns);
}

/** The table read record by record through data/readers (csv-parse for CSV and TSV): what the scanner must agree with. */
export async function readScoreRecords(file: string, columns: readonly string[] | undefined): Promise<ScoreReading> {
  const table = new TableRows(file, columns);
  for await (const record of readRows(file)) table.object(record.values, record);
  return table.finish();
}

/** The records of one reading: the first one's columns choose long or wide; an error in a record waits for the end of the file. */
class TableRows implements DelimitedSink {
  private readonly scores = new ScoreColumns();
  private reader: LongTable | WideTable | undefined;
  private names: string[] = [];
  private records = 0;
  private pending: { error: unknown } | undefined;

  constructor(private readonly file: string, private readonly columns: readonly string[] | undefined) {}

  header(names: string[]): void {
    this.names = names;
  }

  /** A scanned record: a long table reads the positions, a wide one the record as csv-parse gives it. */
  record(view: FieldView): void {
    if (this.records++ === 0) this.start(this.names);
    if (this.pending) return;
    try {
      if (this.reader instanceof LongTable) this.reader.fields(view);
      else this.reader!.record(recordOf(view, this.names), view);
    } catch (error) {
      this.pending = { error };
    }
  }

  /** A record as an object (JSON, or csv-parse's when the scanner gave up). */
  object(values: Record<string, unknown>, at: { index: number; line?: number }): void {
    if (this.records++ === 0) this.start(Object.keys(values));
    if (this.pending) return;
    try {
      this.reader!.record(values, at);
    } catch (error) {
      this.pending = { error };
    }
  }

  finish(): ScoreReading {
    if (this.records === 0) {
      throw new UserError(`${this.file}: no score rows (expected columns run, step, test_set, metric, value, or a wide table with a step column)`);
    }
    if (this.pending) throw this.pending.error;
    return this.reader!.finish();
  }

  private start(columns: string[]): void {
    try {
      if (isWideHeader(columns)) {
        this.reader = new WideTable(this.file, this.scores, columns, parseColumnMap(this.columns));
        return;
      }
      if (this.columns?.length) {
        throw new UserError(`--columns: ${this.file} is a long table (columns run, step, test_set, metric, value); --columns names the ` +
          'columns of a wide one');
      }
      this.reader = new LongTable(this.file, this.scores, columns);
    } catch (error) {
      this.pending = { error };
    }
  }
}
