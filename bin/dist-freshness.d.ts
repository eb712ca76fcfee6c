// Types of dist-freshness.js (plain JavaScript: bin/ runs before anything is compiled), for the tests.
export const DIGEST_FILE: string;
export function sourceDigest(root: string): string;
export function distIsFresh(root: string, outDir?: string): boolean;
