import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ON_A_HOST, portOpen, until } from './processes.js';

export { ON_A_HOST };

/**
 * Two hosts on one machine: two Linux network namespaces joined by a veth pair and nothing else, so
 * whatever crosses between them stays inside them. Faults are nft rules in host B's namespace, on its
 * end of the link (tc netem is not on these machines): random loss each way, or a full partition.
 */
const found = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const haveNetns = process.getuid?.() === 0 && found('ip') && found('nft') && found('socat');

const run = (args: string[], input?: string) => {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
};

const FAULT_TABLE = 'outpost_fault';

export interface TwoHosts {
  a: string;
  b: string;
  /** Host A's address on the link, as host B reaches it. */
  addrA: string;
  addrB: string;
  inNs(ns: string, args: string[], input?: string): string;
  /** Drops `percent` % of the packets each way, at random. */
  loss(percent: number): void;
  /** Drops every packet between the hosts. */
  partition(): void;
  heal(): void;
  /** Counters of the fault rules, packets dropped so far: [into B, out of B]. */
  dropped(): [number, number];
  /** A 127.0.0.1 port in the test's own namespace that reaches `port` on a host's loopback. */
  tunnel(ns: string, port: number): Promise<number>;
  remove(): void;
}

/** Namespaces are named after the test process, so a run killed before its cleanup is found and removed. */
function removeStale(prefix: string) {
  for (const line of run(['ip', 'netns', 'list']).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!name.startsWith(prefix) || !pid) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (!alive) spawnSync('ip', ['netns', 'del', name]);
  }
}

export function twoHosts(scratch: string): TwoHosts {
  const prefix = 'outpost-t';
  removeStale(prefix);
  const a = `${prefix}${process.pid}-a`;
  const b = `${prefix}${process.pid}-b`;
  const [vethA, vethB] = [`opa${process.pid}`, `opb${process.pid}`];
  // A private /30 with no route anywhere else: neither namespace has another interface.
  const [addrA, addrB] = ['10.213.47.1', '10.213.47.2'];
  const helpers: ChildProcess[] = [];

  run(['ip', 'netns', 'add', a]);
  run(['ip', 'netns', 'add', b]);
  run(['ip', 'link', 'add', vethA, 'netns', a, 'type', 'veth', 'peer', 'name', vethB, 'netns', b]);
  for (const [ns, dev, addr] of [
    [a, vethA, addrA],
    [b, vethB, addrB],
  ] as const) {
    run(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    run(['ip', '-n', ns, 'addr', 'add', `${addr}/30`, 'dev', dev]);
    run(['ip', '-n', ns, 'link', 'set', dev, 'up']);
  }
  const inNs = (ns: string, args: string[], input?: string) =>
    run(['ip', 'netns', 'exec', ns, ...args], input);
  inNs(
    b,
    ['nft', '-f', '-'],
    `table inet ${FAULT_TABLE} {
  chain in { type filter hook input priority 0; policy accept; }
  chain out { type filter hook output priority 0; policy accept; }
}
`,
  );
  const rules = (match: (dir: 'iifname' | 'oifname') => string) => {
    const script = [
      `flush chain inet ${FAULT_TABLE} in`,
      `flush chain inet ${FAULT_TABLE} out`,
      ...(match('iifname') ? [`add rule inet ${FAULT_TABLE} in ${match('iifname')} counter drop`] : []),
      ...(match('oifname') ? [`add rule inet ${FAULT_TABLE} out ${match('oifname')} counter drop`] : []),
    ].join('\n');
    inNs(b, ['nft', '-f', '-'], `${script}\n`);
  };

  return {
    a,
    b,
    addrA,
    addrB,
    inNs,
    loss: (percent) => rules((dir) => `${dir} "${vethB}" numgen random mod 100 < ${percent}`),
    partition: () => rules((dir) => `${dir} "${vethB}"`),
    heal: () => rules(() => ''),
    dropped: () => {
      const listing = inNs(b, ['nft', 'list', 'table', 'inet', FAULT_TABLE]);
      const chain = (name: string) =>
        Number(new RegExp(`chain ${name} \\{[^}]*?packets (\\d+)`).exec(listing)?.[1] ?? 0);
      return [chain('in'), chain('out')];
    },
    tunnel: async (ns, port) => {
      // A Unix socket is reached by path from any network namespace: the test's requests never touch
      // the link between the hosts, so the faults on it cannot hide or cause what the test sees.
      const sock = join(scratch, `tunnel-${ns}-${port}.sock`);
      helpers.push(
        spawn(
          ON_A_HOST[0]!,
          [
            ...ON_A_HOST.slice(1),
            ...['ip', 'netns', 'exec', ns, 'socat', `UNIX-LISTEN:${sock},fork,unlink-early`],
            `TCP:127.0.0.1:${port}`,
          ],
          {
            stdio: 'ignore',
          },
        ),
      );
      await until(`the tunnel into ${ns}`, () => existsSync(sock), 5_000);
      const local = await freePort();
      helpers.push(
        spawn('socat', [`TCP-LISTEN:${local},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${sock}`], {
          stdio: 'ignore',
        }),
      );
      await until(`the tunnel's port ${local}`, () => portOpen(local), 5_000);
      return local;
    },
    remove: () => {
      for (const h of helpers) h.kill('SIGKILL');
      spawnSync('ip', ['netns', 'del', a]);
      spawnSync('ip', ['netns', 'del', b]);
    },
  };
}
