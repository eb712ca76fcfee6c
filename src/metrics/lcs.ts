/**
 * Longest common subsequence of two token-id sequences, as rouge-score computes it. Which of several
 * longest subsequences `lcsIndices` returns matters for ROUGE-Lsum's union, so the backtracking
 * follows rouge-score's tie-breaking (move left only when the cell to the left is strictly larger).
 */

export type TokenIds = ArrayLike<number>;

/** Length of the LCS, with two rolling rows instead of the full table. */
export function lcsLength(ref: TokenIds, can: TokenIds): number {
  const cols = can.length;
  let previous = new Int32Array(cols + 1);
  let current = new Int32Array(cols + 1);
  for (let i = 1; i <= ref.length; i++) {
    const token = ref[i - 1];
    for (let j = 1; j <= cols; j++) {
      if (token === can[j - 1]) current[j] = previous[j - 1] + 1;
      else current[j] = previous[j] >= current[j - 1] ? previous[j] : current[j - 1];
    }
    const swap = previous;
    previous = current;
    current = swap;
  }
  return previous[cols];
}

/** Indices into `ref` of one LCS of `ref` and `can`, in increasing order. */
export function lcsIndices(ref: TokenIds, can: TokenIds): number[] {
  const rows = ref.length;
  const cols = can.length;
  const width = cols + 1;
  const table = new Int32Array((rows + 1) * width);
  for (let i = 1; i <= rows; i++) {
    const token = ref[i - 1];
    const row = i * width;
    const above = row - width;
    for (let j = 1; j <= cols; j++) {
      if (token === can[j - 1]) table[row + j] = table[above + j - 1] + 1;
      else table[row + j] = Math.max(table[above + j], table[row + j - 1]);
    }
  }
  const indices: number[] = [];
  let i = rows;
  let j = cols;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      indices.push(i - 1);
      i--;
      j--;
    } else if (table[i * width + j - 1] > table[(i - 1) * width + j]) {
      j--;
    } else {
      i--;
    }
  }
  return indices.reverse();
}
