// Where the metrics tests find the repository and the shared golden data beside it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const goldenDir = path.join(repoRoot, 'test/metrics/golden');
export const sharedRougeDir = path.resolve(repoRoot, '../shared/golden/rouge');
export const hasSharedRouge = existsSync(sharedRougeDir);
export const SHARED_MISSING = `../shared/golden/rouge not found (looked in ${sharedRougeDir}); skipping the rouge-score goldens`;
