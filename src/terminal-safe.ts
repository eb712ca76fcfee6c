// Names printed on the terminal come from input files (runs, test sets, folders). A control
// character in one would be obeyed by the terminal instead of shown: an ESC sequence can recolour,
// retitle or clear it, a carriage return overwrite the line, a right-to-left override reverse what
// follows. Such characters are printed escaped, as \x1b or \u202e, so the name shows what it is.

// C0 and C1 controls, DEL, and the bidirectional formatting characters.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A character as its escape: \x1b below U+0100, \u202e above (also how the paper files show characters XML forbids). */
export function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with its control characters escaped; with `lines`, the line breaks of a text of several lines kept. */
export function terminalSafe(text: string, opts: { lines?: boolean } = {}): string {
  return text.replace(UNSAFE, (c) => (opts.lines && c === '\n' ? c : escaped(c)));
}
