// The versions a result depends on, recorded with every run so that it can be reproduced.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * An installed package's version. `require("<pkg>/package.json")` fails for packages whose
 * "exports" do not list it (@huggingface/tokenizers), so the package.json is found by walking up
 * from the package's entry point to the folder whose package.json has that name.
 */
export function installedVersion(pkg: string): string {
  try {
    let dir = path.dirname(require.resolve(pkg));
    for (;;) {
      const file = path.join(dir, 'package.json');
      if (fs.existsSync(file)) {
        const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (json.name === pkg && json.version) return json.version;
      }
      const parent = path.dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
  } catch {
    return 'unknown';
  }
}

export function studyVersions(): Record<string, string> {
  const own = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
  const versions: Record<string, string> = { node: process.versions.node, genstudy: own.version };
  for (const pkg of ['@tensorflow/tfjs-core', '@huggingface/tokenizers', 'better-sqlite3']) versions[pkg] = installedVersion(pkg);
  return versions;
}
