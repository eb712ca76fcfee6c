// Content identity of a checkpoint: sha256 over its weight files (in a fixed order), cached in memory
// per path + inode + mtime + size so that reloading an unchanged folder does not hash it again (the
// inode: a file renamed into place, as a trainer replaces a checkpoint, is another file even when a
// copy kept its size and time).
import crypto from 'node:crypto';
import fs from 'node:fs';

const cache = new Map<string, string>();

function fileDigest(file: string): string {
  const st = fs.statSync(file);
  const key = `${file}\0${st.ino}\0${st.mtimeMs}\0${st.size}`;
  let d = cache.get(key);
  if (!d) {
    const h = crypto.createHash('sha256');
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(1 << 22);
      let n: number;
      while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) h.update(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
    d = h.digest('hex');
    cache.set(key, d);
  }
  return d;
}

/** "sha256:<hex>" of the weight files: the file itself when there is one, else a hash of the per-file hashes. */
export function weightsIdentity(files: string[]): string {
  if (files.length === 1) return `sha256:${fileDigest(files[0])}`;
  const h = crypto.createHash('sha256');
  for (const f of files) h.update(fileDigest(f));
  return `sha256:${h.digest('hex')}`;
}
