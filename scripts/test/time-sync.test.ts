import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, sleep } from './helpers/processes.js';

/**
 * install-pi.sh's time step (infra/install/time-sync.sh) with real chrony: the controller host's chronyd
 * serves what `serve` wrote, running two hours off as after a power cut, and a relay Pi's chronyd reads
 * what `follow` wrote and measures its clock against it. Both run in a network namespace of their own
 * (NTP on its standard port, on that namespace's loopback only) and neither touches the machine's clock.
 */
const script = join(root, 'infra', 'install', 'time-sync.sh');
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
const found = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const ready = process.getuid?.() === 0 && found('chronyd') && found('ip') && existsSync(LIBFAKETIME);
if (process.env.CI === 'true' && !ready)
  throw new Error('the time-sync test needs root, chrony, iproute2 and faketime under CI=true');

const ns = `outpost-time${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'outpost-time-'));
// chronyd drops to its own user: it must reach the files written here.
chmodSync(dir, 0o755);
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL');
  spawnSync('ip', ['netns', 'del', ns]);
  rmSync(dir, { recursive: true, force: true });
});

const timeSync = (...args: string[]) =>
  spawnSync('sh', [script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CHRONY_DIR: join(dir, 'etc') },
  });

/** The controller host's chronyd, from the folder `serve` wrote to, its clock `skewSeconds` off. */
async function controllerClock(skewSeconds: number) {
  for (const s of servers.splice(0)) s.kill('SIGKILL');
  await sleep(300);
  const conf = join(dir, 'server.conf');
  writeFileSync(
    conf,
    `confdir ${join(dir, 'etc', 'conf.d')}\nbindaddress 127.0.0.1\ncmdport 0\npidfile ${join(dir, 'server.pid')}\n`,
  );
  rmSync(join(dir, 'server.pid'), { force: true });
  servers.push(
    spawn('ip', ['netns', 'exec', ns, 'chronyd', '-x', '-d', '-f', conf], {
      env: {
        ...process.env,
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME: `${skewSeconds >= 0 ? '+' : ''}${skewSeconds}`,
      },
      stdio: 'ignore',
    }),
  );
  await sleep(1_000);
}

/** What the relay Pi's chronyd, from what `follow` wrote, measures: its clock's error in seconds, or null. */
function piClockError(): number | null {
  const conf = join(dir, 'client.conf');
  writeFileSync(
    conf,
    `sourcedir ${join(dir, 'etc', 'sources.d')}\ncmdport 0\npidfile ${join(dir, 'client.pid')}\n`,
  );
  rmSync(join(dir, 'client.pid'), { force: true });
  const r = spawnSync('ip', ['netns', 'exec', ns, 'chronyd', '-Q', '-t', '12', '-f', conf], {
    encoding: 'utf8',
  });
  const m = /System clock wrong by (-?[\d.]+) seconds/.exec(`${r.stdout}${r.stderr}`);
  return m ? Number(m[1]) : null;
}

describe('time-sync.sh serve: only networks chrony reads as networks, never every address', () => {
  const scratch = () => mkdtempSync(join(dir, 'cidr-'));
  const serveIn = (etc: string, ...args: string[]) =>
    spawnSync('sh', [script, 'serve', ...args], {
      encoding: 'utf8',
      env: { ...process.env, CHRONY_DIR: etc },
    });

  it.each([
    'a/b',
    '192.168.1.0/',
    '/24',
    '192.168.1/24',
    '192.168.1.256/24',
    '192.168.01.0/24',
    '192.168.1.0/33',
    '192.168.1.0/24/8',
    '::1/129',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
  ])('refuses %s, writing nothing', (net) => {
    const etc = join(scratch(), 'etc');
    const r = serveIn(etc, '10.0.0.0/8', net);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`not a network: ${net}`);
    expect(existsSync(join(etc, 'conf.d', 'outpost-serve.conf'))).toBe(false);
  });

  it.each(['0.0.0.0/0', '10.0.0.0/0', '::/0'])('refuses %s (every address) unless --force', (net) => {
    const etc = join(scratch(), 'etc');
    const refused = serveIn(etc, net);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/every address.*--force/);
    expect(existsSync(join(etc, 'conf.d', 'outpost-serve.conf'))).toBe(false);
    const forced = serveIn(etc, '--force', net);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(join(etc, 'conf.d', 'outpost-serve.conf'), 'utf8')).toMatch(
      new RegExp(`^allow ${net.replace(/[.]/g, '\\.')}$`, 'm'),
    );
  });

  it('writes one allow line per network it accepts', () => {
    const etc = join(scratch(), 'etc');
    const nets = ['192.168.1.0/24', '10.0.0.0/8', '172.16.5.9', 'fd00::/8', '2001:db8::1', '::1/128'];
    const r = serveIn(etc, ...nets);
    expect(r.status, r.stderr).toBe(0);
    const conf = readFileSync(join(etc, 'conf.d', 'outpost-serve.conf'), 'utf8');
    expect(conf.split('\n').filter((l) => l.startsWith('allow '))).toEqual(nets.map((n) => `allow ${n}`));
  });
});

describe.skipIf(!ready)('install-pi.sh --time-from-controller / --serve-time (real chrony)', () => {
  it('refuses what would break chrony.conf', () => {
    expect(timeSync('serve', '192.168.1.0/24; server evil').status).not.toBe(0);
    expect(timeSync('follow', 'host\nserver evil').status).not.toBe(0);
    expect(timeSync('follow').status).toBe(2);
    expect(existsSync(join(dir, 'etc'))).toBe(false);
  });

  it('the Pi takes the controller host’s time, two hours apart, and only from a network it serves', {
    timeout: 60_000,
  }, async () => {
    spawnSync('ip', ['netns', 'add', ns]);
    expect(spawnSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']).status).toBe(0);

    // The join string's broker address names the controller host: here, that namespace's loopback.
    const follow = timeSync('follow', '127.0.0.1');
    expect(follow.status, follow.stderr).toBe(0);
    expect(readFileSync(join(dir, 'etc', 'sources.d', 'outpost.sources'), 'utf8')).toMatch(
      /^server 127\.0\.0\.1 iburst prefer$/m,
    );

    // Served to another network only: the Pi gets no answer.
    expect(timeSync('serve', '10.0.0.0/8').status).toBe(0);
    await controllerClock(-7_200);
    expect(piClockError()).toBeNull();

    // Served to the Pi's network, the controller host two hours behind with no internet (local
    // stratum): the Pi measures exactly that and would step to it.
    const serve = timeSync('serve', '127.0.0.0/8', '::1/128');
    expect(serve.status, serve.stderr).toBe(0);
    await controllerClock(-7_200);
    const error = piClockError();
    expect(error).not.toBeNull();
    expect(error!).toBeCloseTo(-7_200, 0);
  });
});
