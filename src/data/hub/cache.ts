// The Hugging Face cache layout, shared with huggingface_hub and transformers so a file pulled
// here is found there and the other way round:
//   <cache>/<datasets|models>--owner--name/blobs/<etag>
//   <cache>/<...>/snapshots/<commit>/<path in repo>  -> ../../blobs/<etag> (relative symlink)
//   <cache>/<...>/refs/<revision>                     (the commit a branch or tag pointed at)
import { homedir } from 'node:os';
import { join, dirname, relative } from 'node:path';
import { mkdir, readFile, symlink, copyFile, readdir, lstat } from 'node:fs/promises';
import { buildAtomically, isTemporaryName, writeFileAtomic } from '../../atomic-write.ts';

/** The kinds of hub repository a file is pulled from; the first is the default, as on the hub. */
export const REPO_TYPES = ['dataset', 'model'] as const;
export type RepoType = (typeof REPO_TYPES)[number];

export const COMMIT = /^[0-9a-f]{40}$/;

/** HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HUGGINGFACE_HUB_CACHE) return env.HUGGINGFACE_HUB_CACHE;
  const home = env.HF_HOME ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'huggingface');
  return join(home, 'hub');
}

export function repoFolderName(repo: string, type: RepoType): string {
  return [`${type}s`, ...repo.split('/')].join('--');
}

export class RepoCache {
  readonly root: string;
  constructor(cacheDir: string, readonly repo: string, readonly type: RepoType) {
    this.root = join(cacheDir, repoFolderName(repo, type));
  }
  blobPath(etag: string): string {
    return join(this.root, 'blobs', etag);
  }
  snapshotDir(commit: string): string {
    return join(this.root, 'snapshots', commit);
  }
  snapshotPath(commit: string, file: string): string {
    return join(this.snapshotDir(commit), ...file.split('/'));
  }
  refPath(revision: string): string {
    return join(this.root, 'refs', ...revision.split('/'));
  }

  /** The commit a revision resolves to from the cache alone, or undefined. */
  async cachedCommit(revision: string): Promise<string | undefined> {
    if (COMMIT.test(revision)) return (await exists(this.snapshotDir(revision))) ? revision : undefined;
    try {
      const commit = (await readFile(this.refPath(revision), 'utf8')).trim();
      return COMMIT.test(commit) ? commit : undefined;
    } catch {
      return undefined;
    }
  }

  async writeRef(revision: string, commit: string): Promise<void> {
    if (revision === commit) return;
    await writeAtomically(this.refPath(revision), commit);
  }

  /** Points snapshots/<commit>/<file> at the blob; the link appears whole or not at all. */
  async link(commit: string, file: string, blob: string): Promise<string> {
    const pointer = this.snapshotPath(commit, file);
    await mkdir(dirname(pointer), { recursive: true });
    await buildAtomically(pointer, async (tmp) => {
      try {
        await symlink(relative(dirname(pointer), blob), tmp);
      } catch {
        await copyFile(blob, tmp); // file systems without symlinks get a copy, as huggingface_hub does
      }
    });
    return pointer;
  }

  /** Every file under a cached snapshot, as repo paths. */
  async snapshotFiles(commit: string): Promise<string[]> {
    const root = this.snapshotDir(commit);
    const out: string[] = [];
    const walk = async (dir: string, prefix: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
        if (entry.isDirectory()) await walk(join(dir, entry.name), rel);
        else if (!isTemporaryName(entry.name)) out.push(rel);
      }
    };
    if (await exists(root)) await walk(root, '');
    return out.sort();
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

export async function writeAtomically(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  writeFileAtomic(path, content);
}
