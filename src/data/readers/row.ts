// What every reader yields: one source record with where it came from, so errors can point at it.

/** The file formats a data set is read from (a spec's `format`, else told by the extension). */
export const FORMATS = ['json', 'jsonl', 'csv', 'tsv', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

export interface SourceRow {
  /** 0-based position among the file's records (header rows and blank lines not counted). */
  index: number;
  /** 1-based line where the record starts in a text file; absent for parquet. */
  line?: number;
  values: Record<string, unknown>;
}

export interface ReadOptions {
  /** Defaults to the file's extension (a trailing .gz is looked through). */
  format?: Format;
  /** CSV/TSV: whether `"` quotes fields (RFC 4180). Default: true for csv, false for tsv (GLUE style). */
  quote?: boolean;
  /** CSV/TSV: the field separator. Default: "," for csv, tab for tsv. */
  delimiter?: string;
  /**
   * CSV/TSV: keep a leading ' before a formula character as it is (a data set's text). Default: taken
   * off, as genstudy writes it into its own tables (csv-formula.ts), so they read back unchanged.
   */
  verbatim?: boolean;
}

/** "file:line" for text files, "file (row N)" for parquet: how an error names a record. */
export function rowWhere(file: string, row: Pick<SourceRow, 'index' | 'line'>, field?: string): string {
  const at = row.line !== undefined ? `${file}:${row.line}` : `${file} (row ${row.index + 1})`;
  return field === undefined ? at : `${at}, field "${field}"`;
}
