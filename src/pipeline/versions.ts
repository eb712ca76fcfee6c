// The versions a result depends on, recorded with every run so that it can be reproduced.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function studyVersions(): Record<string, string> {
  const versions: Record<string, string> = { node: process.versions.node };
  for (const pkg of ['genstudy', '@tensorflow/tfjs-core', '@huggingface/tokenizers', 'better-sqlite3']) {
    try {
      const file = pkg === 'genstudy' ? '../../package.json' : `${pkg}/package.json`;
      versions[pkg] = (require(file) as { version: string }).version;
    } catch {
      versions[pkg] = 'unknown';
    }
  }
  return versions;
}
