// One file from the hub into blobs/: written to "<blob>.incomplete", resumed with an HTTP Range
// request when that file is already there (a broken or killed download), checked for size and
// hash, and only then renamed to its final name. @huggingface/hub's downloadFileToCacheDir does
// none of resume, verification or refs, so this part is ours; listing and repo info use the library.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, stat, truncate, unlink } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { UserError } from '../../errors.ts';

export interface Expected {
  size: number;
  /** sha256 of the content (LFS files: the hub's LFS oid). */
  sha256?: string;
  /** The git blob id (sha1 of "blob <size>\0" + content): what the hub lists for regular files. */
  gitSha1?: string;
}

export interface DownloadRequest {
  url: string;
  /** For messages: "owner/name:path/in/repo". */
  label: string;
  blobPath: string;
  expected: Expected;
  token?: string;
  fetch: typeof fetch;
  /** How many times a connection that breaks mid-file is resumed before giving up. */
  retries: number;
  onProgress?: (bytes: number, total: number) => void;
}

export interface DownloadOutcome {
  /** Bytes already on disk from an earlier, broken attempt when this one began. */
  resumedFrom: number;
  /** Range requests made after a break within this call. */
  resumes: number;
}

const MAX_REDIRECTS = 5;

export async function downloadBlob(req: DownloadRequest): Promise<DownloadOutcome> {
  const incomplete = `${req.blobPath}.incomplete`;
  const total = req.expected.size;
  const resumedFrom = await sizeOf(incomplete);
  let resumes = 0;
  for (let attempt = 0; ; attempt++) {
    let have = await sizeOf(incomplete);
    if (have > total) {
      await truncate(incomplete, 0);
      have = 0;
    }
    if (have < total || total === 0) {
      try {
        await fetchInto(req, incomplete, have);
      } catch (err) {
        if (err instanceof UserError || attempt >= req.retries || !isTransient(err)) {
          if (err instanceof UserError) throw err;
          const got = await sizeOf(incomplete);
          throw new UserError(
            `${req.label}: download broke after ${got} of ${total} bytes (${describeNetworkError(err)}); ` +
              `run the same command again to resume from ${incomplete}`,
          );
        }
        resumes++;
        await new Promise((ok) => setTimeout(ok, 100 * 2 ** attempt)); // a short pause before resuming
        continue;
      }
    }
    break;
  }
  await verify(req, incomplete);
  await rename(incomplete, req.blobPath);
  return { resumedFrom, resumes };
}

async function fetchInto(req: DownloadRequest, incomplete: string, have: number): Promise<void> {
  const headers: Record<string, string> = { 'user-agent': 'genstudy' };
  if (have > 0) headers.range = `bytes=${have}-`;
  let url = req.url;
  let response: Response | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // Redirects are followed by hand: the token must not travel to another host (the hub
    // redirects LFS files to a CDN), and Range must travel everywhere.
    const sameHost = new URL(url).host === new URL(req.url).host;
    const h = { ...headers, ...(req.token && sameHost ? { authorization: `Bearer ${req.token}` } : {}) };
    response = await req.fetch(url, { headers: h, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      checkLinkedHeaders(req, response);
      await response.body?.cancel();
      url = new URL(response.headers.get('location')!, url).toString();
      continue;
    }
    break;
  }
  if (!response) throw new Error('no response');
  if (response.status === 416 && have > 0) {
    // Our partial file does not fit what the server has: start over.
    await response.body?.cancel();
    await truncate(incomplete, 0);
    return fetchInto(req, incomplete, 0);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UserError(`${req.label}: the server answered ${response.status} ${response.statusText} for ${url}`);
  }
  checkLinkedHeaders(req, response);
  let start = 0;
  if (response.status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    start = range ? Number(range[1]) : -1;
    if (start !== have) {
      await response.body?.cancel();
      throw new UserError(`${req.label}: asked for bytes from ${have}, the server sent "${response.headers.get('content-range')}"`);
    }
  } else if (have > 0) {
    await truncate(incomplete, 0); // the server ignored Range and sends the whole file
  }
  if (!response.body) throw new UserError(`${req.label}: the server sent no body`);
  let bytes = start;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > req.expected.size) {
        done(new UserError(`${req.label}: the server sent more than the expected ${req.expected.size} bytes`));
        return;
      }
      req.onProgress?.(bytes, req.expected.size);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), count, createWriteStream(incomplete, { flags: 'a' }));
  if (bytes < req.expected.size) {
    const err = new Error(`connection closed after ${bytes} of ${req.expected.size} bytes`);
    (err as NodeJS.ErrnoException).code = 'ECONNRESET';
    throw err;
  }
}

/** The hub's own statement of a file's hash and size (X-Linked-Etag / X-Linked-Size) must agree with the listing. */
function checkLinkedHeaders(req: DownloadRequest, response: Response): void {
  const linkedSize = response.headers.get('x-linked-size');
  if (linkedSize !== null && Number(linkedSize) !== req.expected.size) {
    throw new UserError(`${req.label}: the hub lists ${req.expected.size} bytes but X-Linked-Size says ${linkedSize}`);
  }
  const linkedEtag = response.headers.get('x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '');
  if (linkedEtag && req.expected.sha256 && /^[0-9a-f]{64}$/.test(linkedEtag) && linkedEtag !== req.expected.sha256) {
    throw new UserError(`${req.label}: the hub lists sha256 ${req.expected.sha256} but X-Linked-Etag says ${linkedEtag}`);
  }
}

async function verify(req: DownloadRequest, file: string): Promise<void> {
  const { size, sha256, gitSha1 } = req.expected;
  const got = await sizeOf(file);
  const fail = async (what: string): Promise<never> => {
    await unlink(file).catch(() => undefined); // wrong bytes must not be resumed from
    throw new UserError(`${req.label}: ${what}; the downloaded file was deleted, nothing was added to the cache`);
  };
  if (got !== size) await fail(`expected ${size} bytes, got ${got}`);
  if (sha256) {
    const actual = await hashFile(file, 'sha256');
    if (actual !== sha256) await fail(`sha256 mismatch: expected ${sha256}, got ${actual}`);
  }
  if (gitSha1) {
    const actual = await hashFile(file, 'sha1', `blob ${size}\0`);
    if (actual !== gitSha1) await fail(`git blob id mismatch: expected ${gitSha1}, got ${actual}`);
  }
}

export async function hashFile(file: string, algorithm: 'sha256' | 'sha1', prefix?: string): Promise<string> {
  const h = createHash(algorithm);
  if (prefix) h.update(prefix);
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

const TRANSIENT = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EPIPE', 'ETIMEDOUT',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE', 'EAI_AGAIN']);

export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isTransient(err: unknown): boolean {
  const code = networkCode(err);
  if (code !== undefined) return TRANSIENT.has(code);
  return err instanceof TypeError && /fetch failed|terminated/i.test(err.message);
}

export function describeNetworkError(err: unknown): string {
  const code = networkCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${code}: ${message}` : message;
}
