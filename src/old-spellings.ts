// Old spellings still read: a value or key renamed so that one thing has one name is still accepted
// under its old spelling, and a note says once per process, on stderr, where it was written and
// what to write instead.

const noted = new Set<string>();

/** Where the notes go (tests replace it). */
export const oldSpellingNotes = { write: (line: string): void => void process.stderr.write(line + '\n') };

/** Notes once that `where` (a file and a field, a flag) wrote `old`, read as `now`. */
export function noteOldSpelling(where: string, old: string, now: string): void {
  const line = `genstudy: ${where}: "${old}" is the old spelling of "${now}"; it is read as "${now}", which is what to write`;
  if (noted.has(line)) return;
  noted.add(line);
  oldSpellingNotes.write(line);
}

/**
 * `value` under its current spelling: a key of `old` is noted (noteOldSpelling) and read as the
 * value it names; anything else is returned as it is, for the caller's own check.
 */
export function currentSpelling<T extends string>(value: string, old: Readonly<Record<string, T>>, where: string): T | string {
  if (!Object.hasOwn(old, value)) return value;
  noteOldSpelling(where, value, old[value]);
  return old[value];
}
