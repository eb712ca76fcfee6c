// V8's JSON.parse messages either give "at position N" or quote the whole input back; keep the
// useful part and the offset, and never echo a long record into an error message.

export function jsonErrorDetail(err: unknown, text: string): { detail: string; offset?: number } {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /at position (\d+)/.exec(message);
  let detail = message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
  if (/^Unexpected end of JSON input/.test(message)) detail = 'unexpected end of the record';
  if (detail.length > 200) detail = detail.slice(0, 200) + '...';
  if (pos) return { detail, offset: Number(pos[1]) };
  // "Unexpected token 'x'" comes without a position: the first such character outside strings is
  // where V8 stopped (it reports the first character it cannot use).
  const tok = /^Unexpected token '(.)'/.exec(message);
  if (tok) {
    const offset = firstOutsideStrings(text, tok[1]);
    if (offset !== undefined) return { detail, offset };
  }
  return { detail };
}

function firstOutsideStrings(text: string, ch: string): number | undefined {
  let inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ch) return k;
  }
  return undefined;
}
