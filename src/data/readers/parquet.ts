// Parquet through hyparquet, one row group at a time so only one group is decoded in memory.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { UserError } from '../../errors.ts';
import { fileError } from './open.ts';
import type { SourceRow } from './row.ts';

export async function* readParquet(file: string): AsyncGenerator<SourceRow> {
  let buffer;
  try {
    buffer = await asyncBufferFromFile(file);
  } catch (err) {
    throw fileError(file, err as NodeJS.ErrnoException);
  }
  let metadata;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (err) {
    throw new UserError(`${file}: not a readable parquet file (${(err as Error).message})`);
  }
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, rowStart, rowEnd });
    } catch (err) {
      throw new UserError(`${file} (rows ${rowStart + 1}-${rowEnd}): cannot decode parquet data (${(err as Error).message})`);
    }
    for (let k = 0; k < rows.length; k++) yield { index: rowStart + k, values: rows[k] };
    rowStart = rowEnd;
  }
}
