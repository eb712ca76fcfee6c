// "1 checkpoint", "2 checkpoints": counts in the command line's summaries, said as a person says them.
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
