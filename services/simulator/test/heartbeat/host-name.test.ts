import { createSocket, type Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemPinger, type Lookup } from '../../src/heartbeat/pinger.js';
import { waitFor } from '../helpers/peers.js';

/**
 * A DNS server on 127.0.0.1 that answers A records from a table the test edits, NXDOMAIN for the rest:
 * name resolution as the pinger meets it, without a query leaving this machine.
 */
async function dnsServer(): Promise<{ port: number; names: Map<string, string>; socket: Socket }> {
  const names = new Map<string, string>();
  const socket = createSocket('udp4');
  socket.on('message', (q, from) => {
    let end = 12;
    const labels: string[] = [];
    while (q[end] !== 0 && end < q.length) {
      labels.push(q.subarray(end + 1, end + 1 + q[end]!).toString('ascii'));
      end += q[end]! + 1;
    }
    const question = q.subarray(12, end + 5);
    const type = q.readUInt16BE(end + 1);
    const address = names.get(labels.join('.').toLowerCase());
    const answer = address !== undefined && type === 1;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.readUInt16BE(0), 0);
    // QR, the query's RD, RA; RCODE 3 (no such name) unless the name is in the table.
    header.writeUInt16BE(0x8080 | (q.readUInt16BE(2) & 0x0100) | (address === undefined ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answer ? 1 : 0, 6);
    const parts = [header, question];
    if (answer) {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(1, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(0, 6);
      rr.writeUInt16BE(4, 10);
      for (const [i, o] of address.split('.').entries()) rr.writeUInt8(Number(o), 12 + i);
      parts.push(rr);
    }
    socket.send(Buffer.concat(parts), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return { port: socket.address().port, names, socket };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('SIMULATOR_IP as a host name', () => {
  it('is resolved before each ping: reachable while it resolves, unreachable (not a crash) when it stops', async () => {
    const dns = await dnsServer();
    cleanups.push(() => dns.socket.close());
    const resolver = new Resolver({ timeout: 500, tries: 1 });
    resolver.setServers([`127.0.0.1:${dns.port}`]);
    const lookup: Lookup = async (name) => (await resolver.resolve4(name))[0]!;
    const unresolved: string[] = [];
    dns.names.set('rig-3.sim-center.test', '127.0.0.1');
    const pinger = createSystemPinger({
      ip: 'rig-3.sim-center.test',
      lookup,
      onUnresolved: (r) => unresolved.push(r),
    });
    cleanups.push(() => pinger.stop());

    pinger.refresh();
    await waitFor(() => pinger.reachable(), 5000);
    expect(pinger.problem?.()).toBeNull();

    // The name goes away (the rig was renamed): the next probe resolves again and fails.
    dns.names.delete('rig-3.sim-center.test');
    pinger.refresh();
    await waitFor(() => !pinger.reachable(), 5000);
    expect(pinger.problem?.()).toBe('rig-3.sim-center.test does not resolve (ENOTFOUND)');
    pinger.refresh();
    await new Promise((r) => setTimeout(r, 200));
    expect(unresolved).toEqual(['rig-3.sim-center.test does not resolve (ENOTFOUND)']);

    // Back again: reachable again, without a restart.
    dns.names.set('rig-3.sim-center.test', '127.0.0.1');
    pinger.refresh();
    await waitFor(() => pinger.reachable(), 5000);
  });

  it('uses the system resolver by default (localhost from /etc/hosts)', async () => {
    const pinger = createSystemPinger({ ip: 'localhost' });
    cleanups.push(() => pinger.stop());
    pinger.refresh();
    await waitFor(() => pinger.reachable(), 5000);
  });
});
