// Whether dist/ was built from exactly the sources in src/: the build (scripts/build-library.js)
// records a digest of src/ and the two tsconfig files in dist/, and the CLI (bin/genstudy.js) runs
// dist/ only when the tree's digest now is the same. A digest of contents, not modification times:
// a checkout, an unpacked archive or a copy that keeps times can give a changed file an older time,
// and a developer who edits src/ must never run dist/'s older code. It reads ~2.7 MB (about 15 ms);
// running dist/ instead of src/ through tsx saves ~0.35 CPU-s a start (docs/analyze.md).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the build records the digest of the sources it compiled, relative to the output folder. */
export const DIGEST_FILE = 'sources.sha256';

/** The files whose contents decide what the build emits: every file under src/, and the compiler's settings. */
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** sha256 of every input file's path (relative to root) and contents, in sorted path order; a missing input counts as absent. */
export function sourceDigest(root) {
  const files = [];
  const visit = (relative) => {
    const full = path.join(root, relative);
    let stat;
    try {
      stat = fs.statSync(full);
    } catch {
      return;
    }
    if (stat.isDirectory()) for (const name of fs.readdirSync(full)) visit(path.posix.join(relative, name));
    else if (stat.isFile()) files.push(relative);
  };
  for (const input of INPUTS) visit(input);
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const data = fs.readFileSync(path.join(root, file));
    // the path and the length before the contents, so no two trees hash the same bytes
    hash.update(`${file}\0${data.length}\0`);
    hash.update(data);
  }
  return hash.digest('hex');
}

/** Whether `outDir` (default root/dist) holds a build of the sources as they are now. */
export function distIsFresh(root, outDir = path.join(root, 'dist')) {
  let recorded;
  try {
    recorded = fs.readFileSync(path.join(outDir, DIGEST_FILE), 'utf8').trim();
  } catch {
    return false;
  }
  return recorded === sourceDigest(root);
}
