// Picks the reader for a file: by the format given, else by the extension.
import { extname } from 'node:path';
import { open } from 'node:fs/promises';
import { UserError } from '../../errors.ts';
import { readJsonArray } from './json.ts';
import { readJsonLines } from './jsonl.ts';
import { readDelimited } from './csv.ts';
import { isGzip } from './open.ts';
import type { Format, ReadOptions, SourceRow } from './row.ts';

export type { Format, ReadOptions, SourceRow } from './row.ts';
export { rowWhere } from './row.ts';

const BY_EXTENSION: Record<string, Format> = {
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.parquet': 'parquet',
};

export function formatOf(file: string): Format {
  const name = isGzip(file) ? file.slice(0, -3) : file;
  const format = BY_EXTENSION[extname(name).toLowerCase()];
  if (!format) {
    throw new UserError(
      `${file}: cannot tell the format from the extension; expected one of ${Object.keys(BY_EXTENSION).join(', ')} (or set format)`);
  }
  return format;
}

export async function* readRows(file: string, opts: ReadOptions = {}): AsyncGenerator<SourceRow> {
  const format = opts.format ?? formatOf(file);
  switch (format) {
    case 'json':
      // Many ".json" files on the hub are JSON Lines; the first character tells them apart.
      yield* ((await startsWithArray(file)) ? readJsonArray(file) : readJsonLines(file));
      return;
    case 'jsonl':
      yield* readJsonLines(file);
      return;
    case 'csv':
      yield* readDelimited(file, { delimiter: opts.delimiter ?? ',', quote: opts.quote ?? true, verbatim: opts.verbatim ?? false });
      return;
    case 'tsv':
      yield* readDelimited(file, { delimiter: opts.delimiter ?? '\t', quote: opts.quote ?? false, verbatim: opts.verbatim ?? false });
      return;
    case 'parquet':
      // loaded when a Parquet file is read: hyparquet's 28 modules cost every command ~10 ms a start otherwise
      yield* (await import('./parquet.ts')).readParquet(file);
      return;
  }
}

async function startsWithArray(file: string): Promise<boolean> {
  if (isGzip(file)) return true; // read whole anyway; the array reader reports what it found
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return true; // let the array reader report the missing file
  }
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    return head === '' || head.startsWith('[');
  } finally {
    await handle.close();
  }
}
