// A real HTTP server on 127.0.0.1 that answers like the Hugging Face hub for a few small repos:
// the repo info API (sha), the tree API, and resolve URLs (regular files served directly with a
// git-blob ETag; LFS files redirected to a "CDN" path with X-Linked-Etag / X-Linked-Size), with
// HTTP Range support. Knobs make it break a connection, stall, or send wrong bytes.
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';

export interface FakeFile {
  path: string;
  content: Buffer;
  lfs: boolean;
}

export interface FakeRepo {
  type: 'dataset' | 'model';
  name: string;
  commit: string;
  refs: Record<string, string>;
  files: FakeFile[];
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
export const gitSha1 = (b: Buffer): string => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

export class FakeHub extends EventEmitter {
  url = '';
  readonly requests: { url: string; range?: string }[] = [];
  /** path -> bytes: the next download of that file sends this many bytes, then breaks the connection. */
  readonly breakOnce = new Map<string, number>();
  /** path -> bytes: downloads of that file send this many bytes, then hang (emits "stalled"). */
  readonly stall = new Map<string, number>();
  /** Files served with wrong bytes (same length). */
  readonly corrupt = new Set<string>();
  private server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(readonly repos: FakeRepo[]) {
    super();
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    const addr = this.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${addr.port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  /** The requests that were answered with this file's bytes (the CDN for LFS files, resolve for others). */
  contentRequests(path: string): { url: string; range?: string }[] {
    const file = this.findFile(path);
    if (!file) return [];
    if (file.lfs) return this.requests.filter((r) => r.url === `/cdn/${sha256(file.content)}`);
    return this.requests.filter((r) => r.url.includes('/resolve/') && r.url.endsWith(`/${path}`));
  }

  private findFile(path: string): FakeFile | undefined {
    for (const repo of this.repos) for (const f of repo.files) if (f.path === path) return f;
    return undefined;
  }

  private repo(type: string, owner: string, name: string): FakeRepo | undefined {
    const t = type === 'datasets' ? 'dataset' : type === 'models' ? 'model' : undefined;
    return this.repos.find((r) => r.type === t && r.name === `${owner}/${name}`);
  }

  private commitOf(repo: FakeRepo, rev: string): string | undefined {
    if (rev === repo.commit) return rev;
    return repo.refs[rev];
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    this.requests.push({ url: path, ...(req.headers.range ? { range: req.headers.range } : {}) });
    let m: RegExpExecArray | null;
    if ((m = /^\/api\/(datasets|models)\/([^/]+)\/([^/]+)\/revision\/(.+)$/.exec(path))) {
      const repo = this.repo(m[1], m[2], m[3]);
      const commit = repo && this.commitOf(repo, m[4]);
      if (!repo || !commit) return this.notFound(res, 'RepoNotFound');
      return this.json(res,
        { _id: 'x', id: repo.name, sha: commit, private: false, gated: false, downloads: 0, likes: 0, lastModified: '2026-01-01T00:00:00.000Z' });
    }
    if ((m = /^\/api\/(datasets|models)\/([^/]+)\/([^/]+)\/tree\/([^/]+)(\/.*)?$/.exec(path))) {
      const repo = this.repo(m[1], m[2], m[3]);
      if (!repo || !this.commitOf(repo, m[4])) return this.notFound(res, 'RevisionNotFound');
      const dirs = new Set<string>();
      const entries: object[] = [];
      for (const f of repo.files) {
        const parts = f.path.split('/');
        for (let k = 1; k < parts.length; k++) dirs.add(parts.slice(0, k).join('/'));
        entries.push({
          type: 'file',
          oid: f.lfs ? gitSha1(Buffer.from(`pointer ${sha256(f.content)}`)) : gitSha1(f.content),
          size: f.lfs ? 130 : f.content.length,
          path: f.path,
          ...(f.lfs ? { lfs: { oid: sha256(f.content), size: f.content.length, pointerSize: 130 } } : {}),
        });
      }
      return this.json(res, [...[...dirs].map((d) => ({ type: 'directory', oid: 'd'.repeat(40), size: 0, path: d })), ...entries]);
    }
    if ((m = /^\/(?:(datasets)\/)?([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path))) {
      const repo = this.repo(m[1] ?? 'models', m[2], m[3]);
      const commit = repo && this.commitOf(repo, m[4]);
      const file = repo?.files.find((f) => f.path === m![5]);
      if (!repo || !commit || !file) return this.notFound(res, 'EntryNotFound');
      if (file.lfs) {
        res.writeHead(302, {
          location: `/cdn/${sha256(file.content)}`,
          'x-linked-etag': `"${sha256(file.content)}"`,
          'x-linked-size': String(file.content.length),
          'x-repo-commit': commit,
          etag: `"${gitSha1(Buffer.from('pointer'))}"`,
        });
        return void res.end();
      }
      return this.serve(req, res, file, { etag: `"${gitSha1(file.content)}"`, 'x-repo-commit': commit });
    }
    if ((m = /^\/cdn\/([0-9a-f]{64})$/.exec(path))) {
      const file = this.repos.flatMap((r) => r.files).find((f) => sha256(f.content) === m![1]);
      if (!file) return this.notFound(res, 'EntryNotFound');
      return this.serve(req, res, file, { etag: `"${m[1]}"` });
    }
    this.notFound(res, 'NotFound');
  }

  private serve(req: IncomingMessage, res: ServerResponse, file: FakeFile, headers: Record<string, string>): void {
    let body = file.content;
    if (this.corrupt.has(file.path)) body = Buffer.from(body.map((b) => b ^ 0xff));
    const size = body.length;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start > size) {
      res.writeHead(416, { 'content-range': `bytes */${size}` });
      return void res.end();
    }
    const part = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      ...headers,
      'accept-ranges': 'bytes',
      'content-length': String(part.length),
      'content-type': 'application/octet-stream',
      ...(range ? { 'content-range': `bytes ${start}-${size - 1}/${size}` } : {}),
    });
    const cut = this.breakOnce.get(file.path);
    if (cut !== undefined && cut < part.length) {
      this.breakOnce.delete(file.path);
      // A reset discards what the client has not read yet: give it time to read the bytes that
      // were sent (20 ms was too short on a loaded machine, and the resume then had nothing to resume).
      res.write(part.subarray(0, cut), () => setTimeout(() => req.socket.destroy(), 250));
      return;
    }
    const hang = this.stall.get(file.path);
    if (hang !== undefined && hang < part.length) {
      res.write(part.subarray(0, hang), () => this.emit('stalled', file.path));
      return; // never ends: the client must be killed
    }
    res.end(part);
  }

  private json(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }

  private notFound(res: ServerResponse, code: string): void {
    res.writeHead(404, { 'content-type': 'application/json', 'x-error-code': code });
    res.end(JSON.stringify({ error: `${code}` }));
  }
}
