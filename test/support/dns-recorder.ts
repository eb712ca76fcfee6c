// A DNS server on 127.0.0.1:53 that records every name asked and answers "no such name" at once;
// run inside a network namespace whose /etc/resolv.conf points there (see native-telemetry.test.ts),
// it sees every host lookup a child process makes. It runs the command given, then looks up one
// name itself (so a recorder that records nothing is caught), and prints the names as JSON.
// Usage: node --import tsx dns-recorder.ts <command> [args...]
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import dns from 'node:dns/promises';

const SELF_CHECK = 'genstudy-recorder-check.invalid';

/** The queried name of a DNS message (RFC 1035 4.1.2: length-prefixed labels after the 12-byte header) and where its question ends. */
function question(msg: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let i = 12;
  while (i < msg.length && msg[i] !== 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]).toString('latin1'));
    i += 1 + msg[i];
  }
  return { name: labels.join('.'), end: i + 1 + 4 };
}

const names: string[] = [];
const server = dgram.createSocket('udp4');
server.on('message', (msg, from) => {
  const q = question(msg);
  names.push(q.name);
  const reply = Buffer.from(msg.subarray(0, q.end));
  reply[2] = 0x80 | (msg[2] & 0x01); // a response, recursion desired as asked
  reply[3] = 0x83; // recursion available, NXDOMAIN
  reply.writeUInt16BE(0, 6); // no answers,
  reply.writeUInt16BE(0, 8); // no authority,
  reply.writeUInt16BE(0, 10); // no additional records
  server.send(reply, from.port, from.address);
});
await new Promise<void>((resolve) => server.bind(53, '127.0.0.1', resolve));

const [command, ...args] = process.argv.slice(2);
const child = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
  const p = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => { stdout += String(d); });
  p.stderr.on('data', (d) => { stderr += String(d); });
  p.on('error', reject);
  p.on('close', (status) => resolve({ status, stdout, stderr: stderr.slice(-2000) }));
});
const childNames = [...names];
await dns.lookup(SELF_CHECK).catch(() => undefined);
server.close();
process.stdout.write(JSON.stringify({ child, names: childNames, selfCheckRecorded: names.includes(SELF_CHECK) }) + '\n');
