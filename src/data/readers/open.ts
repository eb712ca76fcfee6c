// Opens a data file as a byte stream, looking through gzip when the name ends in .gz.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import type { Readable } from 'node:stream';
import { UserError } from '../../errors.ts';

export function isGzip(file: string): boolean {
  return file.toLowerCase().endsWith('.gz');
}

export function openStream(file: string): Readable {
  const raw = createReadStream(file);
  if (!isGzip(file)) return raw;
  const gunzip = createGunzip();
  raw.on('error', (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}

export async function readText(file: string): Promise<string> {
  const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
    throw fileError(file, err);
  });
  return (isGzip(file) ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** Turns "no such file" and friends into a UserError naming the file. */
export function fileError(file: string, err: NodeJS.ErrnoException): Error {
  if (err.code === 'ENOENT') return new UserError(`${file}: file not found`);
  if (err.code === 'EISDIR') return new UserError(`${file}: is a folder, expected a data file`);
  if (err.code === 'EACCES') return new UserError(`${file}: permission denied`);
  if (err.code === 'Z_DATA_ERROR') return new UserError(`${file}: not valid gzip data (${err.message})`);
  return err;
}
