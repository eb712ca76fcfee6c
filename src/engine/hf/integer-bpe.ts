// The BPE model's per-word merge step of @huggingface/tokenizers 0.2.0, on integer symbols.
// Why it exists: the library looks every candidate pair up as JSON.stringify([left, right]) in a
// Map keyed by strings and builds an object per node. SentencePiece-style tokenizers (Llama-2) have
// no pre-tokenizer, so a whole text is one word and the library's per-word cache never hits: the
// study B FTICL summary strings (xsum 2000, k = 2, several thousand characters each) took 54 of the
// truncation test's 61 s in that step (CPU profile, load ~5). Numbers after the change: src/engine/README.md.
//
// Same answer by construction: the same merge order (lowest rank first, then the leftmost: the
// library's rank + i / n, i the pair's first character in the word of n characters), the same rule
// for which queue entries are stale (a node replaced since it was queued, as the library's node
// copies), the same pair table (the library's parsed merges, a later duplicate winning as in its
// Map). One step more: a word is cut where two neighbouring characters stand next to each other in
// no string of the merge table, since no merge can then ever join them; each piece is merged alone
// (and cached). That gives the whole word's answer: a merge changes only its own piece, so each
// piece sees the same merges in the same order (by rank, then position) as inside the whole word.
// For Llama-2 the pieces are about words ("▁the"), so a text costs what a pre-tokenized one does.
// Only `bpe` is replaced: normalisation, pre-tokenisation, added tokens, ignore_merges, byte
// fallback, unknown tokens and post-processing stay the library's. A model with an end-of-word or
// continuing-subword suffix keeps the library's own `bpe` (this step does not add suffixes).
import * as tokenizers from '@huggingface/tokenizers';

/** What this step reads and replaces of the library's BPE model. */
interface BpeModel {
  /** The merges as the library parsed them (pairs of strings, in rank order). */
  merges: unknown[];
  bpe(token: string): string[];
  end_of_word_suffix?: string;
  continuing_subword_suffix: string | null;
}

// The package's type declarations re-export BPE through extensionless paths, which NodeNext resolution
// does not follow; the module exports the class at run time.
const { BPE } = tokenizers as unknown as { BPE: abstract new (...args: never[]) => BpeModel };

/** (left, right) symbol pair -> a number: open addressing on typed arrays (~20% faster than a Map keyed by left * symbols + right). */
class PairTable {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly value: Int32Array;
  private readonly mask: number;

  constructor(pairs: number) {
    let size = 16;
    while (size < 2 * pairs) size *= 2;
    this.left = new Int32Array(size).fill(-1);
    this.right = new Int32Array(size);
    this.value = new Int32Array(size);
    this.mask = size - 1;
  }

  private slot(l: number, r: number): number {
    let i = (Math.imul(l, 0x9e3779b1) ^ Math.imul(r, 0x85ebca77)) & this.mask;
    while (this.left[i] !== -1 && (this.left[i] !== l || this.right[i] !== r)) i = (i + 1) & this.mask;
    return i;
  }

  /** A pair set twice keeps the later value, as the library's Map of ranks does. */
  set(l: number, r: number, value: number): void {
    const i = this.slot(l, r);
    this.left[i] = l; this.right[i] = r; this.value[i] = value;
  }

  /** The pair's value, or -1. */
  get(l: number, r: number): number {
    const i = this.slot(l, r);
    return this.left[i] === -1 ? -1 : this.value[i];
  }
}

interface MergeTable {
  /** The string of each symbol: those that occur in a merge (either side or the result). */
  strings: string[];
  /** Symbol of each one-character string among them, by code point (-1: none); astral ones in `astral`. */
  bmp: Int32Array;
  astral: Map<number, number>;
  rankOf: PairTable;
  /** The symbol a rank's merge makes. */
  mergedOf: Int32Array;
  /** One-character symbols that stand next to each other (in this order) in some string of the table. */
  joinable: PairTable;
}

function mergeTable(merges: unknown[]): MergeTable {
  const symbolOf = new Map<string, number>();
  const strings: string[] = [];
  const sym = (s: string): number => {
    let id = symbolOf.get(s);
    if (id === undefined) {
      id = strings.length;
      symbolOf.set(s, id);
      strings.push(s);
    }
    return id;
  };
  // The library keys its ranks by JSON.stringify(merge) and looks up two strings: other shapes never match.
  const pairs: ([string, string] | undefined)[] = merges.map((m) =>
    Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string' ? [m[0], m[1]] : undefined);
  for (const p of pairs) if (p) { sym(p[0]); sym(p[1]); sym(p[0] + p[1]); }
  const rankOf = new PairTable(merges.length);
  const mergedOf = new Int32Array(merges.length);
  pairs.forEach((p, rank) => {
    if (!p) return;
    rankOf.set(symbolOf.get(p[0])!, symbolOf.get(p[1])!, rank);
    mergedOf[rank] = symbolOf.get(p[0] + p[1])!;
  });
  const bmp = new Int32Array(0x10000).fill(-1);
  const astral = new Map<number, number>();
  strings.forEach((s, id) => {
    const cp = s.codePointAt(0)!;
    if (s.length === (cp > 0xffff ? 2 : 1)) {
      if (cp > 0xffff) astral.set(cp, id);
      else bmp[cp] = id;
    }
  });
  const table = { strings, bmp, astral, rankOf, mergedOf, joinable: new PairTable(0) };
  let neighbours = 0;
  for (const s of strings) neighbours += s.length;
  const joinable = new PairTable(neighbours);
  for (const s of strings) {
    let left = -1;
    for (let k = 0; k < s.length;) {
      const cp = s.codePointAt(k)!;
      const right = symbolOfChar(table, cp);
      // A character with no symbol of its own is in no merge's pair, so it never stands beside another piece.
      if (left >= 0 && right >= 0) joinable.set(left, right, 0);
      left = right;
      k += cp > 0xffff ? 2 : 1;
    }
  }
  table.joinable = joinable;
  return table;
}

/** The code point at k as Array.from reads it (a lone surrogate is one). */
function codePointAt(word: string, k: number): number {
  const c = word.charCodeAt(k);
  if (c >= 0xd800 && c <= 0xdbff && k + 1 < word.length) {
    const d = word.charCodeAt(k + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return c;
}

/** The symbol of a one-character string, or -1 when no merge has it. */
function symbolOfChar(table: Pick<MergeTable, 'bmp' | 'astral'>, cp: number): number {
  return cp > 0xffff ? table.astral.get(cp) ?? -1 : table.bmp[cp];
}

/** A binary min-heap of (score, position, version, rank) in typed arrays. */
class Queue {
  score = new Float64Array(64);
  pos = new Int32Array(64);
  ver = new Int32Array(64);
  rank = new Int32Array(64);
  size = 0;

  reset(capacity: number): void {
    if (capacity > this.score.length) {
      this.score = new Float64Array(capacity);
      this.pos = new Int32Array(capacity);
      this.ver = new Int32Array(capacity);
      this.rank = new Int32Array(capacity);
    }
    this.size = 0;
  }

  push(score: number, pos: number, ver: number, rank: number): void {
    const { score: s, pos: p, ver: v, rank: r } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (s[parent] <= score) break;
      s[i] = s[parent]; p[i] = p[parent]; v[i] = v[parent]; r[i] = r[parent];
      i = parent;
    }
    s[i] = score; p[i] = pos; v[i] = ver; r[i] = rank;
  }

  /** Removes the top entry (read it from index 0 first). */
  pop(): void {
    const { score: s, pos: p, ver: v, rank: r } = this;
    const last = --this.size;
    const ls = s[last], lp = p[last], lv = v[last], lr = r[last];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      if (c + 1 < last && s[c + 1] < s[c]) c++;
      if (s[c] >= ls) break;
      s[i] = s[c]; p[i] = p[c]; v[i] = v[c]; r[i] = r[c];
      i = c;
    }
    s[i] = ls; p[i] = lp; v[i] = lv; r[i] = lr;
  }
}

/** Per-word working arrays, grown as needed and reused across words. */
class Work {
  sym = new Int32Array(64);
  prev = new Int32Array(64);
  next = new Int32Array(64);
  ver = new Int32Array(64);
  queue = new Queue();

  reset(n: number): void {
    if (n > this.sym.length) {
      const size = Math.max(n, 2 * this.sym.length);
      this.sym = new Int32Array(size);
      this.prev = new Int32Array(size);
      this.next = new Int32Array(size);
      this.ver = new Int32Array(size);
    }
    // A word of n characters queues at most n - 1 pairs and two per merge (at most n - 1 merges).
    this.queue.reset(3 * n);
  }
}

function bpeWord(word: string, table: MergeTable, work: Work): string[] {
  const { strings, rankOf, mergedOf } = table;
  const symbols = strings.length;
  work.reset(word.length);
  const { sym, prev, next, ver, queue } = work;
  // The word's characters as Array.from splits it, without a string each; characters in no merge
  // get symbols past the table's, so they take part in no pair.
  const unknown: string[] = [];
  let n = 0;
  for (let k = 0; k < word.length; n++) {
    const cp = codePointAt(word, k);
    const width = cp > 0xffff ? 2 : 1;
    let s = symbolOfChar(table, cp);
    if (s < 0) { s = symbols + unknown.length; unknown.push(word.slice(k, k + width)); }
    sym[n] = s; prev[n] = n - 1; next[n] = n + 1; ver[n] = 0;
    k += width;
  }
  if (n === 1) return [word];
  next[n - 1] = -1;
  const offer = (i: number): void => {
    const l = sym[i], r = sym[next[i]];
    if (l >= symbols || r >= symbols) return;
    const rank = rankOf.get(l, r);
    if (rank >= 0) queue.push(rank + i / n, i, ver[i], rank);
  };
  for (let i = 0; i + 1 < n; i++) offer(i);
  while (queue.size > 0) {
    const i = queue.pos[0], v = queue.ver[0], rank = queue.rank[0];
    queue.pop();
    if (ver[i] !== v) continue; // that node was replaced after it was queued
    const j = next[i];
    // The library's node copies, as new versions: the merged node, its right part (gone) and its left neighbour.
    ver[i]++; ver[j]++;
    sym[i] = mergedOf[rank];
    const after = next[j];
    next[i] = after;
    if (after >= 0) prev[after] = i;
    const before = prev[i];
    if (before >= 0) { ver[before]++; offer(before); }
    if (after >= 0) offer(i);
  }
  const out: string[] = [];
  for (let i = 0; i >= 0; i = next[i]) out.push(sym[i] < symbols ? strings[sym[i]] : unknown[sym[i] - symbols]);
  return out;
}

/** Where `word` may be cut: before each character that no string of the table joins to the one before it. */
function cuts(word: string, table: MergeTable): number[] {
  const at: number[] = [];
  let left = -1;
  for (let k = 0; k < word.length;) {
    const cp = codePointAt(word, k);
    const right = symbolOfChar(table, cp);
    if (k > 0 && (left < 0 || right < 0 || table.joinable.get(left, right) < 0)) at.push(k);
    left = right;
    k += cp > 0xffff ? 2 : 1;
  }
  return at;
}

/** Pieces cached: a bound on the cache's size (cleared when full), not on what is right. */
const CACHE_PIECES = 100_000;
/** Longer pieces are not cached, as the library caches no longer word (its max_length_to_cache). */
const CACHE_LENGTH = 256;

/**
 * Gives a @huggingface/tokenizers BPE model (the one a Tokenizer holds) the integer merge step,
 * where it applies; returns whether it did. The model's tokens are then the same, faster.
 */
export function useIntegerBpe(model: unknown): boolean {
  if (!(model instanceof BPE) || model.end_of_word_suffix || model.continuing_subword_suffix) return false;
  let table: MergeTable | undefined;
  const work = new Work();
  const cache = new Map<string, string[]>();
  const piece = (text: string): string[] => {
    let result = cache.get(text);
    if (result === undefined) {
      result = bpeWord(text, table!, work);
      if (text.length < CACHE_LENGTH) {
        if (cache.size >= CACHE_PIECES) cache.clear();
        cache.set(text, result);
      }
    }
    return result;
  };
  model.bpe = (token: string): string[] => {
    if (token.length === 0) return [];
    table ??= mergeTable(model.merges);
    const at = cuts(token, table);
    if (at.length === 0) return piece(token);
    const out: string[] = [];
    let from = 0;
    for (const to of [...at, token.length]) {
      for (const t of piece(token.slice(from, to))) out.push(t);
      from = to;
    }
    return out;
  };
  return true;
}
