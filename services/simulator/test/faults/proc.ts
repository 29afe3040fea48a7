import { readFileSync } from 'node:fs';

/** Resident and peak resident memory of a process, in bytes, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`${field} missing from /proc/${pid}/status`);
    return Number(m[1]) * 1024;
  };
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * The kernel's view of the UDP socket bound to 127.0.0.1:port: bytes still queued for the process and
 * datagrams it dropped because the process did not read them fast enough (/proc/net/udp `drops`).
 */
export function udpSocketStats(port: number): { queuedBytes: number; drops: number } {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1] !== local) continue;
    const rxQueue = f[4]?.split(':')[1] ?? '0';
    return { queuedBytes: Number.parseInt(rxQueue, 16), drops: Number(f[12] ?? 0) };
  }
  throw new Error(`no UDP socket bound to 127.0.0.1:${port}`);
}

export const MiB = 1024 * 1024;
