// A name the input does not have is most often a typo or a different case of one it has
// ("In-domain", "arc-easy"): the error says which was probably meant before listing them all.

/** Edits (insertions, deletions, substitutions) between two strings. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The known name closest to `name` when it is close enough to be a typo of it (case and -/_ ignored first), else undefined. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const same = known.find((k) => norm(k) === norm(name));
  if (same !== undefined) return same;
  let best: string | undefined, bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(norm(name), norm(k));
    if (d < bestDistance) { best = k; bestDistance = d; }
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 4)) ? best : undefined;
}

/** "(did you mean "x"? it has: a, b)" or "(it has: a, b)", for an error about an unknown name. */
export function knownNamesText(name: string, known: readonly string[]): string {
  const guess = closestName(name, known);
  return `(${guess !== undefined ? `did you mean "${guess}"? ` : ''}it has: ${known.join(', ')})`;
}
