// The content hash of a data set: sha256 over a canonical form of its examples, so the same
// examples give the same hash whatever file layout or column order they came from.
import { createHash } from 'node:crypto';
import type { Example } from '../types.ts';

export function contentHash(examples: readonly Example[]): string {
  const h = createHash('sha256');
  for (const e of examples) {
    const fields = Object.keys(e.fields).sort().map((k) => [k, e.fields[k]]);
    h.update(JSON.stringify([e.id, fields, e.label ?? null, e.target ?? null]));
    h.update('\n');
  }
  return h.digest('hex');
}
