// Which processes hold a lock on a file, so that "the store is locked" can say by whom. SQLite
// locks with POSIX advisory locks (fcntl) on the store and, in WAL mode, on its -shm file; Linux
// lists every such lock, with its process and the file's device and inode, in /proc/locks.
// Elsewhere (or where /proc cannot be read) nobody is named.
import fs from 'node:fs';

/** Processes other than this one holding a POSIX lock on one of `files`: "pid (command line)". */
export function lockHolders(files: readonly string[]): string[] {
  let locks: string;
  try {
    locks = fs.readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const inodes = new Set<string>();
  for (const f of files) {
    try {
      inodes.add(String(fs.statSync(f).ino));
    } catch {
      // a -shm file that does not exist is locked by nobody
    }
  }
  const pids = new Set<number>();
  for (const line of locks.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 120 120" (a "->" marks a lock request waiting)
    const m = /\b(?:POSIX|OFDLCK)\s+\S+\s+\S+\s+(-?\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (m && !line.includes('->') && inodes.has(m[2]) && Number(m[1]) > 0 && Number(m[1]) !== process.pid) pids.add(Number(m[1]));
  }
  return [...pids].map((pid) => `${pid}${commandOf(pid)}`);
}

function commandOf(pid: number): string {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return cmd ? ` (${cmd.length > 80 ? `${cmd.slice(0, 80)}…` : cmd})` : '';
  } catch {
    return '';
  }
}
