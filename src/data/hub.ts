// Hugging Face hub downloads into the shared cache: `pullRepo` for a whole repo (or the files
// matching --include), `resolveHubFile` for one file of a data set spec. Works offline from the
// cache when HF_HUB_OFFLINE=1, or when the server cannot be reached and the revision is cached.
import { datasetInfo, listFiles, modelInfo, HubApiError } from '@huggingface/hub';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UserError } from '../errors.ts';
import { COMMIT, REPO_TYPES, RepoCache, defaultCacheDir, exists, type RepoType } from './hub/cache.ts';
import { downloadBlob, describeNetworkError, hashFile, isTransient, type Expected } from './hub/download.ts';
import { makePathFilter } from './hub/glob.ts';

export { defaultCacheDir, repoFolderName, REPO_TYPES, type RepoType } from './hub/cache.ts';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';

export interface HubOptions {
  /** The hub's address. Default: HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Default: HF_HUB_CACHE, HF_HOME/hub, or ~/.cache/huggingface/hub. */
  cacheDir?: string;
  /** Use only the cache. Default: HF_HUB_OFFLINE is 1/true/yes/on. */
  offline?: boolean;
  /** Default: HF_TOKEN. */
  token?: string;
  /** Times a broken connection is resumed within one call (default 3). */
  retries?: number;
  fetch?: typeof fetch;
  /** Notes for the user (falling back to the cache, a resumed file). */
  log?: (message: string) => void;
  onProgress?: (file: string, bytes: number, total: number) => void;
}

export interface RepoRef {
  repo: string;
  repoType?: RepoType;
  /** Branch, tag or commit; default "main". */
  revision?: string;
}

export interface PulledFile {
  path: string;
  size: number;
  /** The file in snapshots/<commit>/. */
  localPath: string;
  /** "downloaded", "cached" (already in snapshots), or "linked" (the blob was there; only the link was new). */
  status: 'downloaded' | 'cached' | 'linked';
  /** Bytes already on disk from an earlier broken download, when resumed. */
  resumedFrom?: number;
}

export interface PullResult {
  repo: string;
  repoType: RepoType;
  revision: string;
  commit: string;
  snapshotDir: string;
  files: PulledFile[];
  /** True when the answer came from the cache alone. */
  offline: boolean;
}

interface Resolved {
  endpoint: string;
  cacheDir: string;
  offline: boolean;
  token?: string;
  retries: number;
  fetch: typeof fetch;
  log: (message: string) => void;
}

function resolveOptions(opts: HubOptions): Resolved {
  const env = process.env;
  const offlineEnv = /^(1|true|yes|on)$/i.test(env.HF_HUB_OFFLINE ?? '');
  return {
    endpoint: (opts.endpoint ?? env.HF_ENDPOINT ?? DEFAULT_ENDPOINT).replace(/\/+$/, ''),
    cacheDir: opts.cacheDir ?? defaultCacheDir(env),
    offline: opts.offline ?? offlineEnv,
    token: opts.token ?? env.HF_TOKEN ?? undefined,
    retries: opts.retries ?? 3,
    fetch: opts.fetch ?? fetch,
    log: opts.log ?? (() => undefined),
  };
}

function checkRepo(ref: RepoRef): { repo: string; type: RepoType; revision: string } {
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(ref.repo) || ref.repo.includes('..')) {
    throw new UserError(`hub repo "${ref.repo}": expected "owner/name"`);
  }
  return { repo: ref.repo, type: ref.repoType ?? REPO_TYPES[0], revision: ref.revision ?? 'main' };
}

export interface PullRequest extends RepoRef {
  /** fnmatch patterns as in huggingface-cli: "*" also matches "/". */
  include?: string[];
  exclude?: string[];
}

/** Downloads the repo's files (those matching `include`) at a revision into the cache. */
export async function pullRepo(request: PullRequest, options: HubOptions = {}): Promise<PullResult> {
  const opts = resolveOptions(options);
  const { repo, type, revision } = checkRepo(request);
  const cache = new RepoCache(opts.cacheDir, repo, type);
  const wanted = makePathFilter(request.include, request.exclude);
  const label = `${type} ${repo}@${revision}`;

  if (opts.offline) return fromCache(cache, repo, type, revision, wanted, label, 'offline mode (HF_HUB_OFFLINE)');

  let commit: string;
  let entries: { path: string; size: number; expected: Expected; etag: string }[];
  try {
    commit = await resolveCommit(opts, repo, type, revision);
    entries = [];
    for await (const entry of listFiles({ repo: { type, name: repo }, revision: commit, recursive: true, hubUrl: opts.endpoint,
      fetch: opts.fetch, ...cred(opts) })) {
      if (entry.type !== 'file' || !wanted(entry.path)) continue;
      checkRepoPath(label, entry.path);
      const size = entry.lfs?.size ?? entry.size;
      const expected: Expected = entry.lfs ? { size, sha256: entry.lfs.oid } : { size, gitSha1: entry.oid };
      const etag = entry.lfs?.oid ?? entry.oid;
      if (!etag) throw new UserError(`${label}: the hub listed ${entry.path} without an oid; cannot place it in the cache`);
      entries.push({ path: entry.path, size, expected, etag });
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    // As huggingface_hub does: no connection, or a server error, and the cache may still answer.
    if (isTransient(err)) {
      return fromCache(cache, repo, type, revision, wanted, label, `cannot reach ${opts.endpoint} (${describeNetworkError(err)})`, opts.log);
    }
    if (err instanceof HubApiError && err.statusCode >= 500 && (await cache.cachedCommit(revision))) {
      return fromCache(cache, repo, type, revision, wanted, label, `${opts.endpoint} answered ${err.statusCode}`, opts.log);
    }
    throw hubError(err, label, opts.endpoint);
  }
  if (entries.length === 0) {
    const filters = request.include?.length ? ` matching ${request.include.map((p) => `"${p}"`).join(', ')}` : '';
    throw new UserError(`${label}: no files${filters} in the repo`);
  }
  await cache.writeRef(revision, commit);
  const files: PulledFile[] = [];
  for (const e of entries) {
    const localPath = cache.snapshotPath(commit, e.path);
    if (await exists(localPath)) {
      files.push({ path: e.path, size: e.size, localPath, status: 'cached' });
      continue;
    }
    const blob = cache.blobPath(e.etag);
    let status: PulledFile['status'] = 'linked';
    let resumedFrom: number | undefined;
    if (!(await exists(blob))) {
      await mkdir(dirname(blob), { recursive: true });
      const outcome = await downloadBlob({
        url: `${opts.endpoint}/${type === 'model' ? '' : `${type}s/`}${repo}/resolve/${commit}/` +
          `${e.path.split('/').map(encodeURIComponent).join('/')}`,
        label: `${repo}:${e.path}`,
        blobPath: blob,
        expected: e.expected,
        token: opts.token,
        fetch: opts.fetch,
        retries: opts.retries,
        onProgress: options.onProgress && ((bytes, total) => options.onProgress!(e.path, bytes, total)),
      });
      status = 'downloaded';
      if (outcome.resumedFrom > 0) {
        resumedFrom = outcome.resumedFrom;
        opts.log(`${repo}:${e.path}: resumed a broken download at byte ${outcome.resumedFrom}`);
      }
    }
    await cache.link(commit, e.path, blob);
    files.push({ path: e.path, size: e.size, localPath, status, ...(resumedFrom !== undefined ? { resumedFrom } : {}) });
  }
  return { repo, repoType: type, revision, commit, snapshotDir: cache.snapshotDir(commit), files, offline: false };
}

export interface HubFileRequest extends RepoRef {
  file: string;
  /** Expected content when the caller knows it (e.g. from the registry). */
  sha256?: string;
  size?: number;
}

/** The local path of one file of a hub repo, downloading it into the cache when needed. */
export async function resolveHubFile(request: HubFileRequest, options: HubOptions = {}): Promise<{ path: string; commit: string; offline: boolean }> {
  const { repo, type, revision } = checkRepo(request);
  const label = `${type} ${repo}@${revision}`;
  checkRepoPath(label, request.file);
  const cache = new RepoCache(resolveOptions(options).cacheDir, repo, type);
  // A pinned commit already in the cache needs no network at all.
  if (COMMIT.test(revision) && (await exists(cache.snapshotPath(revision, request.file)))) {
    return { path: cache.snapshotPath(revision, request.file), commit: revision, offline: true };
  }
  const exact = request.file.replace(/[*?[\]]/g, '[$&]');
  const result = await pullRepo({ repo, repoType: type, revision, include: [exact] }, options);
  const hit = result.files.find((f) => f.path === request.file);
  if (!hit) throw new UserError(`${label}: no file "${request.file}" in the repo`);
  if (request.size !== undefined && hit.size !== request.size) {
    throw new UserError(`${label}: "${request.file}" has ${hit.size} bytes, the spec expects ${request.size}`);
  }
  if (request.sha256 !== undefined) {
    const actual = await hashFile(hit.localPath, 'sha256');
    if (actual !== request.sha256) throw new UserError(`${label}: "${request.file}" has sha256 ${actual}, the spec expects ${request.sha256}`);
  }
  return { path: hit.localPath, commit: result.commit, offline: result.offline };
}

async function resolveCommit(opts: Resolved, repo: string, type: RepoType, revision: string): Promise<string> {
  const common = { name: repo, revision, hubUrl: opts.endpoint, fetch: opts.fetch, additionalFields: ['sha' as const], ...cred(opts) };
  const info = type === 'model' ? await modelInfo(common) : await datasetInfo(common);
  const sha = (info as { sha?: unknown }).sha;
  if (typeof sha !== 'string' || !COMMIT.test(sha)) {
    throw new UserError(`${type} ${repo}@${revision}: the hub at ${opts.endpoint} gave no commit id for this revision`);
  }
  return sha;
}

async function fromCache(
  cache: RepoCache,
  repo: string,
  type: RepoType,
  revision: string,
  wanted: (path: string) => boolean,
  label: string,
  why: string,
  log?: (message: string) => void,
): Promise<PullResult> {
  const commit = await cache.cachedCommit(revision);
  if (!commit) {
    const missing = COMMIT.test(revision) ? `no snapshots/${revision}` : `no refs/${revision}`;
    throw new UserError(`${label}: ${why}, and the revision is not in the cache ${cache.root} (${missing})`);
  }
  const files: PulledFile[] = [];
  for (const path of await cache.snapshotFiles(commit)) {
    if (wanted(path)) files.push({ path, size: 0, localPath: cache.snapshotPath(commit, path), status: 'cached' });
  }
  if (files.length === 0) throw new UserError(`${label}: ${why}, and the cached snapshot ${commit} has no matching files`);
  for (const f of files) f.size = (await stat(f.localPath)).size;
  log?.(`${label}: ${why}; using the cached snapshot ${commit}`);
  return { repo, repoType: type, revision, commit, snapshotDir: cache.snapshotDir(commit), files, offline: true };
}

function cred(opts: Resolved): { accessToken?: string } {
  return opts.token ? { accessToken: opts.token } : {};
}

/** Repo paths come from the server and are joined onto the cache: refuse any that would escape it. */
function checkRepoPath(label: string, path: string): void {
  const parts = path.split('/');
  if (path.startsWith('/') || path.includes('\\') || parts.some((p) => p === '..' || p === '.' || p === '')) {
    throw new UserError(`${label}: refusing the repo path "${path}" (it would leave the cache folder)`);
  }
}

function hubError(err: unknown, label: string, endpoint: string): Error {
  if (err instanceof HubApiError) {
    if (err.statusCode === 404) {
      return new UserError(`${label}: not found at ${endpoint} (check the name and revision; a private repo needs HF_TOKEN)`);
    }
    if (err.statusCode === 401 || err.statusCode === 403) {
      return new UserError(`${label}: access denied by ${endpoint} (${err.statusCode}); set HF_TOKEN for private or gated repos`);
    }
    return new UserError(`${label}: ${endpoint} answered ${err.statusCode}: ${err.message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}
