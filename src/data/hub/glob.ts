// --include / --exclude patterns with huggingface_hub's semantics (fnmatch: "*" also matches "/",
// and a pattern ending in "/" means everything under that folder), so a pattern means the same
// here as in `huggingface-cli download --include`. Node's path.matchesGlob differs ("*" stops at
// "/") and is still experimental in Node 20.

export function globToRegExp(pattern: string): RegExp {
  const p = pattern.endsWith('/') ? pattern + '*' : pattern;
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = p.slice(i + 1, end);
        const negate = body.startsWith('!');
        if (negate) body = body.slice(1);
        re += `[${negate ? '^' : ''}${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** Whether a repo path passes the include patterns (none = all) and none of the exclude patterns. */
export function makePathFilter(include: readonly string[] = [], exclude: readonly string[] = []): (path: string) => boolean {
  const inc = include.map(globToRegExp);
  const exc = exclude.map(globToRegExp);
  return (path) => (inc.length === 0 || inc.some((r) => r.test(path))) && !exc.some((r) => r.test(path));
}
