import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPublish, canRead, type Principal } from '@outpost/broker';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ensureSecrets, MQTT_ACCOUNTS } from '../src/secrets.js';
import { SERVICES } from '../src/services.js';
import { mosquittoConf, startMosquitto } from './helpers/mosquitto.js';
import { freePort, portOpen, until } from './helpers/processes.js';
import { setupTls } from '../src/tls.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const infra = join(root, 'infra');
const CI = process.env.CI === 'true';
const DB_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const temps: string[] = [];
const tempDir = (tag: string) => {
  const d = mkdtempSync(join(tmpdir(), `outpost-infra-${tag}-`));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

const found = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** A tool the test needs: installed with apt-get when missing and possible; missing under CI fails. */
function requireTool(ctx: { skip: (note?: string) => void }, cmd: string, aptPackage: string): void {
  if (found(cmd)) return;
  if (process.getuid?.() === 0 && found('apt-get')) {
    spawnSync('apt-get', ['install', '-y', '-q', aptPackage], { stdio: 'ignore', timeout: 240_000 });
    if (found(cmd)) return;
  }
  if (CI) throw new Error(`${cmd} is missing (apt-get install ${aptPackage})`);
  ctx.skip(`${cmd} not installed`);
}

/** key -> every value of that key, over all sections (unit files repeat keys such as After=). */
function parseUnit(text: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('[')) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    keys.set(key, [...(keys.get(key) ?? []), line.slice(eq + 1)]);
  }
  return keys;
}

const unitDir = join(infra, 'systemd');
const unitFiles = readdirSync(unitDir).filter((f) => f.endsWith('.service') || f.endsWith('.target'));
const units = new Map(unitFiles.map((f) => [f, parseUnit(readFileSync(join(unitDir, f), 'utf8'))]));
const one = (unit: string, key: string) => units.get(unit)?.get(key)?.join(' ') ?? '';

/** The units as the installer writes them, with this checkout as the prefix and this node binary. */
function renderUnits(dir: string): void {
  for (const f of unitFiles) {
    const text = readFileSync(join(unitDir, f), 'utf8')
      .replaceAll('/opt/outpost', root)
      .replaceAll('/usr/bin/node', process.execPath);
    writeFileSync(join(dir, f), text);
  }
  // The raspi-io drop-in as install-pi.sh --gpio-root installs it: verified along with its units.
  for (const u of ['outpost-relay-node.service', 'outpost-controller.service']) {
    mkdirSync(join(dir, `${u}.d`));
    copyFileSync(join(unitDir, 'gpio-root.conf'), join(dir, `${u}.d`, 'gpio-root.conf'));
  }
}

describe('systemd units', () => {
  it('has a unit for the broker and every service the launcher knows', () => {
    for (const s of SERVICES) expect(unitFiles).toContain(`outpost-${s.name}.service`);
    expect(unitFiles).toContain('outpost-broker.service');
    expect(unitFiles).toContain('outpost.target');
  });

  it('every unit (and the gpio-root drop-in) passes systemd-analyze verify with its binaries resolving', (ctx) => {
    requireTool(ctx, 'systemd-analyze', 'systemd');
    const dir = tempDir('units');
    renderUnits(dir);
    const res = spawnSync('systemd-analyze', ['verify', '--man=no', ...unitFiles.map((f) => join(dir, f))], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(res.stderr.trim()).toBe('');
    expect(res.status).toBe(0);

    // The verifier does check: the same unit with a node that does not exist is refused.
    const broken = readFileSync(join(dir, 'outpost-controller.service'), 'utf8').replaceAll(
      process.execPath,
      join(dir, 'no-such-node'),
    );
    writeFileSync(join(dir, 'broken.service'), broken);
    const bad = spawnSync('systemd-analyze', ['verify', '--man=no', join(dir, 'broken.service')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/not executable/);
  });

  it('every script a unit runs is built from a source file in this repository', () => {
    for (const [file, keys] of units) {
      for (const key of ['ExecStart', 'ExecStartPost', 'ExecStopPost']) {
        for (const line of keys.get(key) ?? []) {
          const script = line.split(/\s+/)[1]!;
          expect(script, `${file} ${key}`).toMatch(/^\/opt\/outpost\/.+\/dist\/.+\.js$/);
          const source = script
            .replace('/opt/outpost', root)
            .replace('/dist/', '/src/')
            .replace(/\.js$/, '.ts');
          expect(existsSync(source), `${file}: ${source}`).toBe(true);
        }
      }
    }
  });

  it('restarts, hardens and orders every service after the network and the broker', () => {
    for (const f of unitFiles.filter((u) => u.endsWith('.service'))) {
      expect(one(f, 'Restart'), f).toBe('always');
      expect(one(f, 'NoNewPrivileges'), f).toBe('yes');
      expect(one(f, 'ProtectSystem'), f).toBe('strict');
      expect(one(f, 'ProtectHome'), f).toBe('yes');
      expect(one(f, 'After'), f).toContain('network-online.target');
      expect(one(f, 'WantedBy'), f).toBe('outpost.target');
      // The broker and the embedded PostgreSQL need nothing of each other; every service needs the broker.
      if (f !== 'outpost-broker.service' && f !== 'outpost-postgres.service')
        expect(one(f, 'After'), f).toContain('outpost-broker.service');
    }
    for (const u of ['outpost-controller.service', 'outpost-notifier.service']) {
      expect(one(u, 'After')).toContain('postgresql.service');
      expect(one(u, 'After')).toContain('outpost-postgres.service');
    }
  });

  it('drives the relay OFF after every stop of the relay node and gives it the GPIO and serial groups', () => {
    const u = 'outpost-relay-node.service';
    expect(one(u, 'ExecStopPost')).toBe('-/usr/bin/node /opt/outpost/services/relay-node/dist/relay-off.js');
    expect(one(u, 'SupplementaryGroups')).toContain('gpio');
    // The generator controller over Modbus RTU: a USB RS-485 adapter is a dialout tty.
    expect(one(u, 'SupplementaryGroups')).toContain('dialout');
    expect(one('outpost-controller.service', 'SupplementaryGroups')).toContain('gpio');
  });

  it('gives the simulator the serial ports and no capability; no unit is granted one', () => {
    const u = 'outpost-simulator.service';
    expect(one(u, 'SupplementaryGroups')).toContain('dialout');
    for (const f of unitFiles.filter((x) => x.endsWith('.service'))) {
      // Granted (ambient) capabilities: none, CAP_NET_RAW least of all (a raw socket reads loopback).
      expect(one(f, 'AmbientCapabilities'), f).toBe('');
      expect(one(f, 'NoNewPrivileges'), f).toBe('yes');
      // The simulator's bounding set may name CAP_NET_RAW so Debian's ping (cap_net_raw=ep) can be run
      // at all; NoNewPrivileges= keeps that file capability from granting anything.
      expect(one(f, 'CapabilityBoundingSet'), f).toBe(f === u ? 'CAP_NET_RAW' : '');
    }
  });

  // Security review: a service that is broken into must not reach the others' files or processes.
  describe('one user per service (security)', () => {
    const services = unitFiles.filter((f) => f.endsWith('.service'));
    const install = readFileSync(join(infra, 'install', 'install-pi.sh'), 'utf8');
    const polkit = readFileSync(join(infra, 'polkit', '50-outpost.rules'), 'utf8');

    it('each unit runs as its own named user in the group outpost, with its processes hidden', () => {
      const users = services.map((f) => one(f, 'User'));
      expect(users).toEqual(services.map((f) => f.replace(/\.service$/, '')));
      expect(new Set(users).size).toBe(services.length);
      for (const f of services) {
        expect(one(f, 'Group'), f).toBe('outpost');
        expect(one(f, 'ProtectProc'), f).toBe('invisible');
        expect(one(f, 'DynamicUser'), f).toBe('');
        expect(one(f, 'UMask'), f).toBe('0077');
      }
    });

    it('install-pi.sh creates every unit user, in the group outpost, before anything is chowned to it', () => {
      const list = /^UNIT_USERS="([^"]+)"/m.exec(install)?.[1]?.split(' ') ?? [];
      expect(new Set(list)).toEqual(new Set(services.map((f) => one(f, 'User'))));
      expect(install).toMatch(/useradd --system --gid outpost [^\n]*"\$u"/);
      expect(install.indexOf('useradd --system --gid outpost')).toBeLessThan(
        install.indexOf('sh infra/install/data-dir-owners.sh "$DATA_DIR"'),
      );
      // The hardware groups only where needed.
      expect(install).toContain('usermod -aG gpio outpost-relay-node');
      expect(install).toContain('usermod -aG dialout outpost-relay-node');
      expect(install).toContain('usermod -aG gpio outpost-controller');
      expect(install).toContain('usermod -aG dialout outpost-simulator');
      expect(install).not.toMatch(/chown -R outpost:outpost/);
    });

    it('only the relay node and the embedded PostgreSQL keep state, each in its own directory', () => {
      const state = Object.fromEntries(services.map((f) => [f, one(f, 'StateDirectory')]));
      expect(state).toEqual({
        ...Object.fromEntries(services.map((f) => [f, ''])),
        'outpost-relay-node.service': 'outpost/relay-node',
        'outpost-postgres.service': 'outpost/postgres',
      });
      // DATA_DIR itself is root's: no unit writes there (the cluster is DATA_DIR/postgres, its own).
      const writable = services.filter((f) => one(f, 'ReadWritePaths') !== '');
      expect(writable).toEqual([]);
    });

    it('polkit grants NetworkManager and logind reboot/power-off to the relay node user only', () => {
      expect(polkit).toContain('subject.user !== "outpost-relay-node"');
      expect(polkit.match(/subject\.user/g)).toHaveLength(1);
      for (const action of [
        'org.freedesktop.login1.reboot',
        'org.freedesktop.login1.power-off',
        'org.freedesktop.NetworkManager.network-control',
      ])
        expect(polkit).toContain(`"${action}"`);
      expect(polkit).not.toMatch(
        /login1\.(suspend|hibernate|set-|manage)|NetworkManager\.settings\.modify\.own/,
      );
    });

    it('the relay node has a systemd watchdog it can ping from its own process tree', () => {
      const u = 'outpost-relay-node.service';
      expect(Number(one(u, 'WatchdogSec'))).toBeGreaterThanOrEqual(10);
      expect(Number(one(u, 'WatchdogSec'))).toBeLessThanOrEqual(60);
      expect(one(u, 'NotifyAccess')).toBe('all');
      for (const f of services.filter((x) => x !== u)) expect(one(f, 'WatchdogSec'), f).toBe('');
    });

    it('each unit reads only the shared files and its own environment file, never another unit’s secrets', () => {
      for (const f of services) {
        const name = f.replace(/^outpost-/, '').replace(/\.service$/, '');
        const files = (units.get(f)?.get('EnvironmentFile') ?? []).map((p) => p.replace(/^-/, ''));
        const own = [`${name}.env`, `${name}.db.env`, `${name}.first-start.env`].map(
          (b) => `/etc/outpost/${b}`,
        );
        const shared = ['/etc/outpost/outpost.env', '/etc/outpost/tls.env'];
        for (const file of files) expect([...shared, ...own], `${f}: ${file}`).toContain(file);
      }
    });

    it('TLS under systemd: every unit reads tls.env after its other files; each unit’s key is its own, the CA key root only', () => {
      for (const f of services) {
        const files = units.get(f)?.get('EnvironmentFile') ?? [];
        expect(files.at(-1), f).toBe('-/etc/outpost/tls.env');
      }
      const owners = readFileSync(join(infra, 'install', 'data-dir-owners.sh'), 'utf8');
      expect(owners).toContain('own "$DATA_DIR/tls" "root:$GROUP" 0750');
      expect(owners).toContain('*/server.key) own "$g" "$u:root" 0600');
      expect(owners).not.toContain('server.key) own "$f" "root:$GROUP"');
    });

    it('each unit reads its own TLS key and no other’s; only root reads secrets.json (shell test, as root)', () => {
      const r = spawnSync('sh', [join(infra, 'install', 'unit-keys.test.sh')], {
        encoding: 'utf8',
        env: { ...process.env, NODE: process.execPath },
        timeout: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (r.stdout.startsWith('skip:')) console.log(`unit-keys.test.sh ${r.stdout.trim()}`);
      else expect(r.stdout.trim().split('\n').at(-1)).toBe('ok');
    }, 60_000);
  });

  it('write-env.mjs names the CAs in tls.env and each unit its own certificate (on unless HOST is loopback); the services call each other over https', () => {
    const dir = tempDir('env-tls');
    const run = () =>
      spawnSync(
        process.execPath,
        [join(unitDir, 'write-env.mjs'), '--data-dir', join(dir, 'data'), '--out', join(dir, 'etc')],
        {
          encoding: 'utf8',
        },
      );
    expect(run().status).toBe(0);
    const tlsEnv = readFileSync(join(dir, 'etc', 'tls.env'), 'utf8');
    expect(tlsEnv).not.toContain('TLS_KEY_FILE=');
    expect(tlsEnv).toContain(`NODE_EXTRA_CA_CERTS=${join(dir, 'data', 'tls', 'trust.pem')}\n`);
    for (const unit of ['broker', 'controller', 'relay-node', 'notifier', 'simulator', 'dashboard']) {
      const env = readFileSync(join(dir, 'etc', `${unit}.env`), 'utf8');
      expect(env, unit).toContain(`TLS_CERT_FILE=${join(dir, 'data', 'tls', unit, 'server.pem')}\n`);
      expect(env, unit).toContain(`TLS_KEY_FILE=${join(dir, 'data', 'tls', unit, 'server.key')}\n`);
      expect(statSync(join(dir, 'data', 'tls', unit, 'server.key')).mode & 0o777, unit).toBe(0o600);
    }
    expect(statSync(join(dir, 'data', 'tls', 'ca.key')).mode & 0o777).toBe(0o600);
    const controller = readFileSync(join(dir, 'etc', 'controller.env'), 'utf8');
    expect(controller).toContain('RELAYNODE_URL=https://127.0.0.1:8001\n');
    // HOST=0.0.0.0: every unit's /metrics, the broker's METRICS_PORT too, needs the generated token.
    const token = readFileSync(join(dir, 'data', 'metrics-token'), 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    for (const unit of ['broker', 'controller', 'relay-node', 'notifier', 'simulator', 'dashboard'])
      expect(readFileSync(join(dir, 'etc', `${unit}.env`), 'utf8'), unit).toContain(
        `METRICS_TOKEN=${token}\n`,
      );
    expect(controller).toContain('NOTIFIER_URL=https://127.0.0.1:8002\n');
    // An operator's TLS=off in outpost.env: plain, and no certificate named.
    writeFileSync(
      join(dir, 'etc', 'outpost.env'),
      `${readFileSync(join(dir, 'etc', 'outpost.env'), 'utf8')}TLS=off\n`,
    );
    expect(run().status).toBe(0);
    expect(readFileSync(join(dir, 'etc', 'tls.env'), 'utf8')).not.toContain('TLS_CERT_FILE=/');
    expect(readFileSync(join(dir, 'etc', 'controller.env'), 'utf8')).not.toContain('TLS_CERT_FILE=/');
    expect(readFileSync(join(dir, 'etc', 'controller.env'), 'utf8')).toContain(
      'RELAYNODE_URL=http://127.0.0.1:8001\n',
    );
  }, 30_000);

  it('the ownership step never follows a link a service account planted in DATA_DIR (shell test, as root)', () => {
    const r = spawnSync('sh', [join(infra, 'install', 'data-dir-owners.test.sh')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    if (r.stdout.startsWith('skip:')) console.log(`data-dir-owners.test.sh ${r.stdout.trim()}`);
    else expect(r.stdout.trim().split('\n').at(-1)).toBe('ok');
  });

  it("an upgrade writes no secret through a link planted in DATA_DIR, and none before DATA_DIR is root's (shell test, as root)", {
    timeout: 60_000,
  }, () => {
    const r = spawnSync('sh', [join(infra, 'install', 'upgrade-links.test.sh')], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    if (r.stdout.startsWith('skip:')) console.log(`upgrade-links.test.sh ${r.stdout.trim()}`);
    else expect(r.stdout.trim().split('\n').at(-1)).toBe('ok');
  });

  it('install-pi.sh takes the join string from a file or standard input, never passing it on as an argument', () => {
    const install = readFileSync(join(infra, 'install', 'install-pi.sh'), 'utf8');
    expect(install).toContain('--join-file) need_arg "$@"; JOIN_FILE=$2');
    expect(install).toContain('JOIN=$(cat)');
    // The string reaches node on standard input, from printf (a shell builtin: no process of its own).
    expect(install).toMatch(/printf '%s' "\$JOIN" \| "\$NODE" --input-type=module/);
    expect(install).not.toMatch(/join\.js apply[^\n]*"\$JOIN"/);
    // A stale admin password is never printed: only the install that made it, while it is still kept.
    expect(install).not.toMatch(/say "done\. Controller login: admin \/ \$ADMIN \(also in/);
    expect(install).toContain(
      'if [ "$FIRST_INSTALL" = 1 ] && [ -f "$ETC/controller.first-start.env" ]; then',
    );
    // Read before any unit starts: the controller's first start removes it (forget-admin.js).
    expect(install.indexOf('ADMIN=$(sed -n')).toBeLessThan(
      install.indexOf('systemctl restart outpost.target'),
    );
  });

  it('the Pi install script and the broker helper scripts are valid sh', () => {
    for (const f of [
      'install/install-pi.sh',
      'install/data-dir-owners.sh',
      'install/data-dir-owners.test.sh',
      'install/time-sync.sh',
      'install/unit-keys.test.sh',
      'install/upgrade-links.test.sh',
      'mosquitto/make-passwd.sh',
      'mosquitto/make-tls.sh',
      'emqx/add-users.sh',
    ]) {
      const r = spawnSync('sh', ['-n', join(infra, f)], { encoding: 'utf8' });
      expect(r.stderr, f).toBe('');
      expect(r.status, f).toBe(0);
      expect(statSync(join(infra, f)).mode & 0o111, f).not.toBe(0);
    }
  });

  it("install-pi.sh lets the units' group ping without a capability (net.ipv4.ping_group_range)", () => {
    const install = readFileSync(join(infra, 'install', 'install-pi.sh'), 'utf8');
    expect(install).toContain('/etc/sysctl.d/60-outpost-ping.conf');
    expect(install).toMatch(/getent group outpost/);
    expect(install).toContain('sysctl -q -w "net.ipv4.ping_group_range=$low $high"');
    expect(one('outpost-simulator.service', 'Group')).toBe('outpost');
  });

  it('the heartbeat ping needs no capability once the group is in ping_group_range (real ping, own netns, as root)', (ctx) => {
    if (process.getuid?.() !== 0 || !found('ip') || !found('ping') || !found('setpriv')) {
      if (CI) throw new Error('this test needs root, iproute2, iputils-ping and setpriv under CI=true');
      return ctx.skip('needs root, ip, ping and setpriv');
    }
    const ns = `outpost-ping${process.pid}`;
    try {
      expect(spawnSync('ip', ['netns', 'add', ns]).status).toBe(0);
      expect(spawnSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']).status).toBe(0);
      // As the unit runs it: its own user and group, nothing permitted or ambient, NoNewPrivileges, the
      // bounding set of outpost-simulator.service; node (here sh) runs the pinger's very command.
      const ping = () =>
        spawnSync(
          'ip',
          [
            ...['netns', 'exec', ns, 'setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'],
            ...['--no-new-privs', '--inh-caps=-all', '--bounding-set=-all,+net_raw'],
            ...['sh', '-c', 'exec ping -n -c 1 -W 1 127.0.0.1'],
          ],
          { encoding: 'utf8', timeout: 10_000 },
        );
      const range = (v: string) =>
        spawnSync('ip', ['netns', 'exec', ns, 'sysctl', '-q', '-w', `net.ipv4.ping_group_range=${v}`]);
      expect(range('1 0').status).toBe(0);
      expect(ping().status).not.toBe(0);
      expect(range('65534 65534').status).toBe(0);
      const ok = ping();
      expect(ok.status, ok.stderr).toBe(0);
    } finally {
      spawnSync('ip', ['netns', 'del', ns]);
    }
  });

  it('the units on this host reach the embedded broker over its Unix socket, never loopback TCP', () => {
    const dir = tempDir('socket');
    const res = spawnSync(
      process.execPath,
      [join(unitDir, 'write-env.mjs'), '--data-dir', join(dir, 'data'), '--out', join(dir, 'etc')],
      { encoding: 'utf8' },
    );
    expect(res.status, res.stderr).toBe(0);
    const read = (name: string) =>
      Object.fromEntries(
        readFileSync(join(dir, 'etc', name), 'utf8')
          .split('\n')
          .filter((l) => /^[A-Z_]+=/.test(l))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    const socket = read('broker.env').MQTT_SOCKET;
    expect(socket).toBe('/run/outpost-broker/mqtt.sock');
    // The socket's folder is the broker unit's RuntimeDirectory, its group the units' group.
    expect(one('outpost-broker.service', 'RuntimeDirectory')).toBe('outpost-broker');
    expect(one('outpost-broker.service', 'RuntimeDirectoryMode')).toBe('0750');
    for (const s of SERVICES) {
      // What a unit ends up with: outpost.env, then its own file, as its EnvironmentFile= lines load them.
      const unit = `outpost-${s.name}.service`;
      const env: Record<string, string> = {};
      for (const ref of units.get(unit)?.get('EnvironmentFile') ?? [])
        if (existsSync(join(dir, 'etc', basename(ref.replace(/^-/, '')))))
          Object.assign(env, read(basename(ref.replace(/^-/, ''))));
      expect(env.MQTT_URL, unit).toBe(`mqtt+unix://${socket}`);
      expect(env.MQTT_PASSWORD, unit).toBeTruthy();
    }
    // A broker of your own (--mqtt-url) is left to outpost.env.
    const own = tempDir('socket-own');
    spawnSync(
      process.execPath,
      [
        join(unitDir, 'write-env.mjs'),
        '--data-dir',
        join(own, 'data'),
        '--out',
        join(own, 'etc'),
        '--mqtt-url',
        'mqtts://broker.lan:8883',
      ],
      { encoding: 'utf8' },
    );
    expect(readFileSync(join(own, 'etc', 'controller.env'), 'utf8')).not.toContain('MQTT_URL=');
  }, 30_000);

  it('write-env.mjs writes every EnvironmentFile the units read, 0600, with the launcher secrets', () => {
    const dir = tempDir('env');
    const res = spawnSync(
      process.execPath,
      [join(unitDir, 'write-env.mjs'), '--data-dir', join(dir, 'data'), '--out', join(dir, 'etc')],
      { encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const secrets = JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8'));
    for (const [file, keys] of units) {
      for (const ref of keys.get('EnvironmentFile') ?? []) {
        const path = join(dir, 'etc', basename(ref.replace(/^-/, '')));
        expect(existsSync(path), `${file}: ${ref}`).toBe(true);
        expect(statSync(path).mode & 0o777).toBe(0o600);
      }
    }
    for (const s of SERVICES) {
      const env = readFileSync(join(dir, 'etc', `${s.name}.env`), 'utf8');
      expect(env).toContain(`MQTT_USERNAME=${s.mqttUser}\n`);
      expect(env).toContain(`MQTT_PASSWORD=${secrets.mqtt[s.mqttUser]}\n`);
      expect(env).toContain(`${s.portEnv}=${s.defaultPort}\n`);
    }
    expect(readFileSync(join(dir, 'etc', 'controller.env'), 'utf8')).toContain(
      `JWT_SECRET=${secrets.JWT_SECRET}\n`,
    );
  }, 30_000);
});

const dsFile = parseYaml(readFileSync(join(infra, 'grafana/provisioning/datasources/outpost.yaml'), 'utf8'));
const datasources = new Map<string, string>(
  dsFile.datasources.map((d: { uid: string; type: string }) => [d.uid, d.type]),
);
const dashFiles = readdirSync(join(infra, 'grafana/dashboards')).filter((f) => f.endsWith('.json'));
const dashboards = dashFiles.map((f) => ({
  file: f,
  json: JSON.parse(readFileSync(join(infra, 'grafana/dashboards', f), 'utf8')),
}));
type Target = { refId: string; datasource: { uid: string; type: string }; rawSql?: string; expr?: string };
type Panel = {
  id: number;
  type: string;
  title: string;
  gridPos: object;
  datasource: { uid: string };
  targets: Target[];
};

describe('Grafana provisioning', () => {
  it('provisions a Prometheus, a PostgreSQL and an MQTT datasource with unique uids', () => {
    expect(new Set(datasources.values())).toEqual(
      new Set(['prometheus', 'grafana-postgresql-datasource', 'grafana-mqtt-datasource']),
    );
    expect(datasources.size).toBe(dsFile.datasources.length);
    const pg = dsFile.datasources.find((d: { type: string }) => d.type === 'grafana-postgresql-datasource');
    expect(pg.user).toBe('grafana_reader');
  });

  it('every dashboard has what Grafana needs and uses only provisioned datasources', () => {
    expect(dashboards.map((d) => d.file).sort()).toEqual([
      'live-position.json',
      'operations.json',
      'run-history.json',
    ]);
    const uids = new Set<string>();
    for (const { file, json } of dashboards) {
      expect(typeof json.title, file).toBe('string');
      expect(json.uid, file).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(uids.has(json.uid), file).toBe(false);
      uids.add(json.uid);
      expect(json.schemaVersion, file).toBeGreaterThanOrEqual(36);
      expect(json.panels.length, file).toBeGreaterThan(0);
      const ids = new Set<number>();
      for (const p of json.panels as Panel[]) {
        const where = `${file} panel ${p.id} ${p.title}`;
        expect(ids.has(p.id), where).toBe(false);
        ids.add(p.id);
        expect(p.type && p.title && p.gridPos, where).toBeTruthy();
        expect(datasources.has(p.datasource.uid), where).toBe(true);
        expect(p.targets.length, where).toBeGreaterThan(0);
        for (const t of p.targets) {
          expect(t.refId, where).toMatch(/^[A-Z]$/);
          expect(datasources.get(t.datasource.uid), where).toBe(t.datasource.type);
        }
      }
    }
    const byType = (file: string) =>
      new Set(
        (dashboards.find((d) => d.file === file)!.json.panels as Panel[]).map((p) =>
          datasources.get(p.datasource.uid),
        ),
      );
    expect(byType('operations.json')).toEqual(new Set(['prometheus']));
    expect(byType('run-history.json')).toEqual(new Set(['grafana-postgresql-datasource']));
    expect(byType('live-position.json')).toEqual(new Set(['grafana-mqtt-datasource']));
  });

  it('the dashboard provider reads the directory docker-compose mounts the dashboards at', () => {
    const provider = parseYaml(
      readFileSync(join(infra, 'grafana/provisioning/dashboards/outpost.yaml'), 'utf8'),
    );
    const compose = parseYaml(readFileSync(join(infra, 'docker-compose.yml'), 'utf8'));
    expect(compose.services.grafana.volumes).toContain(
      `./grafana/dashboards:${provider.providers[0].options.path}:ro`,
    );
  });

  it('starts from local files alone: no plugin download, plugins from a mounted folder', () => {
    const compose = parseYaml(readFileSync(join(infra, 'docker-compose.yml'), 'utf8'));
    const env = compose.services.grafana.environment ?? {};
    expect(Object.keys(env).filter((k) => k.startsWith('GF_INSTALL'))).toEqual([]);
    expect(compose.services.grafana.volumes).toContain('./grafana/plugins:/var/lib/grafana/plugins:ro');
  });

  it('provisions alert rules for the relay node, failsafe, EPO, lockout and the broker', () => {
    const file = parseYaml(readFileSync(join(infra, 'grafana/provisioning/alerting/outpost.yaml'), 'utf8'));
    expect(file.apiVersion).toBe(1);
    const rules = file.groups.flatMap((g: { rules: unknown[] }) => g.rules) as {
      uid: string;
      title: string;
      condition: string;
      data: { refId: string; datasourceUid: string; model: { expr?: string; expression?: string } }[];
    }[];
    expect(rules.map((r) => r.title)).toEqual([
      'Relay node offline',
      'Relay node failsafe triggered',
      'Emergency stop engaged',
      'Generator locked out',
      'Broker client dropped',
    ]);
    expect(new Set(rules.map((r) => r.uid)).size).toBe(rules.length);
    for (const r of rules) {
      expect(
        r.data.some((d) => d.refId === r.condition),
        r.title,
      ).toBe(true);
      for (const d of r.data) {
        if (d.datasourceUid === '__expr__') continue;
        expect(datasources.get(d.datasourceUid), r.title).toBe('prometheus');
        expect(d.model.expr, r.title).toMatch(/^[a-z]/);
      }
    }
  });

  it('the live position panels read the simulator position topic the ACL lets a viewer read', () => {
    const live = dashboards.find((d) => d.file === 'live-position.json')!.json;
    for (const p of live.panels as Panel[]) {
      for (const t of p.targets as unknown as { topic: string }[]) {
        // Grafana's template variable, not a JS placeholder.
        expect(t.topic).toBe(['outpost/simulator/', '$', '{simulator}/position'].join(''));
      }
    }
  });
});

function psql(url: string, args: string[]) {
  return spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At', url, ...args], { encoding: 'utf8' });
}
const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u;
};

describe('run-history dashboard on PostgreSQL through the read-only role', () => {
  const db = `outpost_grafana_${process.pid}_${Date.now()}`;
  let ready = false;
  beforeAll(() => {
    if (!found('psql') || psql(DB_URL, ['-c', 'select 1']).status !== 0) return;
    ready = psql(DB_URL, ['-c', `create database ${db}`]).status === 0;
  });
  afterAll(() => {
    if (!ready) return;
    psql(DB_URL, ['-c', `drop database if exists ${db} with (force)`]);
    psql(DB_URL, ['-c', 'drop role if exists grafana_reader']);
  });

  it('every panel query runs as grafana_reader, which can neither write nor read secrets', (ctx) => {
    if (!ready) {
      if (CI) throw new Error(`PostgreSQL (psql) not reachable at ${DB_URL}`);
      ctx.skip('PostgreSQL not reachable');
    }
    const owner = withDb(DB_URL, db).toString();
    for (const svc of ['controller', 'notifier']) {
      const res = psql(owner, ['-f', join(root, 'services', svc, 'drizzle', '0000_init.sql')]);
      expect(res.stderr).not.toMatch(/ERROR/);
    }
    const now = Date.now();
    psql(owner, [
      '-c',
      `insert into controller.runs (start_time, stop_time, duration_seconds, trigger_type, stop_reason)
       values (${now - 7_200_000}, ${now - 3_600_000}, 3600, 'manual', 'manual')`,
    ]);
    const grant = psql(owner, [
      '-v',
      'grafana_password=s3cret-test',
      '-f',
      join(infra, 'postgres/grafana-readonly.sql'),
    ]);
    expect(grant.stderr).toBe('');
    expect(grant.status).toBe(0);

    const reader = withDb(DB_URL, db);
    reader.username = 'grafana_reader';
    reader.password = 's3cret-test';
    const asReader = (sql: string) => psql(reader.toString(), ['-c', sql]);
    const hist = dashboards.find((d) => d.file === 'run-history.json')!.json;
    for (const p of hist.panels as Panel[]) {
      for (const t of p.targets) {
        const sql = t
          .rawSql!.replaceAll('$__unixEpochFrom()', `${Math.floor(now / 1000) - 86_400}`)
          .replaceAll('$__unixEpochTo()', `${Math.floor(now / 1000)}`);
        const res = asReader(sql);
        expect(res.stderr, p.title).toBe('');
      }
    }
    const runs = asReader('select trigger_type, duration_seconds from controller.runs');
    expect(runs.stdout.trim()).toBe('manual|3600');
    expect(
      asReader("insert into controller.runs (start_time, trigger_type) values (1, 'manual')").stderr,
    ).toMatch(/read-only transaction|permission denied/);
    expect(asReader('select * from controller.users').stderr).toMatch(/permission denied/);
    expect(asReader('select * from controller.webhooks').stderr).toMatch(/permission denied/);
    expect(asReader('select * from notifier.channels').stderr).toMatch(/permission denied/);
  });
});

describe('docker-compose.yml and prometheus.yml', () => {
  const compose = parseYaml(readFileSync(join(infra, 'docker-compose.yml'), 'utf8'));

  it('parses, runs PostgreSQL and Mosquitto, and mounts only files that exist', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['postgres', 'mosquitto', 'prometheus', 'grafana']),
    );
    for (const [name, svc] of Object.entries(compose.services) as [string, { volumes?: string[] }][]) {
      for (const v of svc.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('.')) expect(compose.volumes, `${name}: ${v}`).toHaveProperty(source);
        else expect(existsSync(join(infra, source)), `${name}: ${v}`).toBe(true);
      }
    }
  });

  it('the Mosquitto container finds its config, the Outpost rules and the ACL where they are mounted', () => {
    const mount = compose.services.mosquitto.volumes.find((v: string) => v.startsWith('./mosquitto:'));
    const target = mount.split(':')[1];
    const inContainer = (p: string) => join(infra, 'mosquitto', p.slice(target.length + 1));
    const cmd: string[] = compose.services.mosquitto.command;
    const entry = readFileSync(inContainer(cmd[cmd.length - 1]!), 'utf8');
    const includeDir = /^include_dir (.+)$/m.exec(entry)![1]!;
    const outpostConf = readFileSync(join(inContainer(includeDir), 'outpost.conf'), 'utf8');
    expect(existsSync(inContainer(/^acl_file (.+)$/m.exec(outpostConf)![1]!))).toBe(true);
    expect(/^password_file (.+)$/m.exec(outpostConf)![1]!.startsWith(`${target}/`)).toBe(true);
  });

  it('Mosquitto publishes plain MQTT and WebSocket on loopback only, and TLS listeners to the LAN', () => {
    // Compose's short syntax: [host_ip:]host_port:container_port; no host_ip is every address.
    const published = (compose.services.mosquitto.ports as string[]).map((p) => {
      const parts = p.split(':');
      return { hostIp: parts.length === 3 ? parts[0] : '0.0.0.0', port: Number(parts[parts.length - 1]) };
    });
    const mount = compose.services.mosquitto.volumes.find((v: string) => v.startsWith('./mosquitto:'));
    const target = mount.split(':')[1] as string;
    const inRepo = (p: string) => join(infra, 'mosquitto', p.slice(target.length + 1));
    // Every listener the container's config opens, with whether it has a certificate.
    const listeners = new Map<number, { tls: boolean; certfile?: string; keyfile?: string }>();
    const cmd: string[] = compose.services.mosquitto.command;
    const files = [inRepo(cmd[cmd.length - 1]!), join(infra, 'mosquitto/conf.d/outpost.conf')];
    for (const file of files) {
      let current: { tls: boolean; certfile?: string; keyfile?: string } | undefined;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const [key, value] = line.trim().split(/\s+/);
        if (key === 'listener') {
          current = { tls: false };
          listeners.set(Number(value), current);
        }
        if ((key === 'certfile' || key === 'keyfile') && current && value) {
          current[key] = value;
          current.tls = Boolean(current.certfile && current.keyfile);
        }
      }
    }
    expect(published.length).toBeGreaterThan(0);
    for (const { hostIp, port } of published) {
      const listener = listeners.get(port);
      expect(listener, `port ${port}`).toBeDefined();
      if (!listener!.tls) expect(hostIp, `plain listener ${port}`).toBe('127.0.0.1');
    }
    expect(published.filter((p) => p.hostIp === '127.0.0.1').map((p) => p.port)).toEqual([1883, 9001]);
    const lan = published.filter((p) => p.hostIp !== '127.0.0.1');
    expect(lan.map((p) => p.port).sort()).toEqual([8883, 8884]);
    // The certificate is the launcher's, where make-tls.sh puts it inside the mounted folder.
    const makeTls = readFileSync(join(infra, 'mosquitto/make-tls.sh'), 'utf8');
    const out = /OUT=\$\{2:-\$\(dirname "\$0"\)\/(\w+)\}/.exec(makeTls)![1]!;
    for (const { port } of lan) {
      expect(listeners.get(port)!.certfile).toBe(`${target}/${out}/server.pem`);
      expect(listeners.get(port)!.keyfile).toBe(`${target}/${out}/server.key`);
    }
  });

  it("the LAN listeners serve MQTTS and WSS with the launcher's certificate (real Mosquitto, make-tls.sh)", {
    timeout: 60_000,
  }, async (ctx) => {
    requireTool(ctx, 'mosquitto', 'mosquitto');
    requireTool(ctx, 'mosquitto_passwd', 'mosquitto');
    const dir = tempDir('mosquitto-tls');
    const dataDir = join(dir, 'data');
    const { secrets } = ensureSecrets(dataDir);
    // The local CA and server certificate `npm start` makes with TLS on.
    const tls = await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir });
    expect(tls.on).toBe(true);
    const made = spawnSync('sh', [join(infra, 'mosquitto/make-tls.sh'), dataDir, join(dir, 'tls')], {
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    expect(statSync(join(dir, 'tls', 'server.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tls')).mode & 0o777).toBe(0o700);
    // docker.conf's TLS listeners on free ports, reading the files make-tls.sh wrote.
    const [port, wsPort, tlsPort, wssPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const confPath = mosquittoConf(dir, dataDir, { port, wsPort });
    const dockerConf = readFileSync(join(infra, 'mosquitto/docker.conf'), 'utf8');
    const tlsListeners = dockerConf
      .slice(dockerConf.indexOf('listener 8883'))
      .replaceAll('/etc/mosquitto/outpost/tls', join(dir, 'tls'))
      .replace(/^listener 8883$/m, `listener ${tlsPort} 127.0.0.1`)
      .replace(/^listener 8884$/m, `listener ${wssPort} 127.0.0.1`);
    writeFileSync(confPath, `${readFileSync(confPath, 'utf8')}\n${tlsListeners}`);
    let out = '';
    const broker = spawn('mosquitto', ['-c', confPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    broker.stdout?.on('data', (d) => (out += d));
    broker.stderr?.on('data', (d) => (out += d));
    try {
      await until(
        'mosquitto TLS listeners',
        async () => {
          if (broker.exitCode !== null) throw new Error(`mosquitto exited: ${out}`);
          return (await portOpen(tlsPort)) && (await portOpen(wssPort));
        },
        10_000,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}: ${out}`);
      });
      const ca = readFileSync(join(dataDir, 'tls', 'ca.pem'));
      for (const url of [`mqtts://127.0.0.1:${tlsPort}`, `wss://127.0.0.1:${wssPort}`]) {
        const client = await new Promise<MqttClient>((res, rej) => {
          const c = mqtt.connect(url, {
            ca,
            username: 'relaynode',
            password: secrets.mqtt.relaynode,
            reconnectPeriod: 0,
            connectTimeout: 5_000,
          });
          c.once('connect', () => res(c));
          c.once('error', (e) => {
            c.end(true);
            rej(e);
          });
        });
        expect(client.connected, url).toBe(true);
        client.end(true);
      }
    } finally {
      broker.kill('SIGTERM');
    }
  });

  it('Prometheus scrapes every service on its port and the broker on its metrics port', () => {
    const prom = parseYaml(readFileSync(join(infra, 'prometheus/prometheus.yml'), 'utf8'));
    const targets = new Map<string, string[]>(
      prom.scrape_configs.map((c: { job_name: string; static_configs: { targets: string[] }[] }) => [
        c.job_name,
        c.static_configs.flatMap((s) => s.targets),
      ]),
    );
    for (const s of SERVICES)
      expect(targets.get(`outpost-${s.name}`)).toEqual([`localhost:${s.defaultPort}`]);
    const writeEnv = readFileSync(join(unitDir, 'write-env.mjs'), 'utf8');
    const metricsPort = /METRICS_PORT: '(\d+)'/.exec(writeEnv)![1];
    expect(targets.get('outpost-broker')).toEqual([`localhost:${metricsPort}`]);
  });

  it('every Prometheus job sends the metrics token from a credentials file the compose file mounts', () => {
    const prom = parseYaml(readFileSync(join(infra, 'prometheus/prometheus.yml'), 'utf8'));
    const files = new Set<string>();
    for (const job of prom.scrape_configs as { job_name: string; authorization?: Record<string, string> }[]) {
      expect(job.authorization?.type, job.job_name).toBe('Bearer');
      files.add(job.authorization?.credentials_file ?? '');
    }
    expect(files.size).toBe(1);
    const [file] = [...files] as [string];
    const mount = (compose.services.prometheus.volumes as string[])
      .map((v) => v.split(':'))
      .find(([, target]) => target && file.startsWith(`${target}/`));
    expect(mount, file).toBeDefined();
    expect(existsSync(join(infra, mount![0]!))).toBe(true);
  });
});

async function _waitForPort(port: number, proc: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`mosquitto exited: ${output()}`);
    const open = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        res(true);
      });
      s.once('error', () => res(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mosquitto did not listen: ${output()}`);
}

let passwords: Record<string, string> = {};
const password = (user: string) => passwords[user] ?? '';

function login(port: number, username: string): Promise<MqttClient> {
  return new Promise((res, rej) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username,
      password: password(username),
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId: `infra-test-${username}-${process.pid}`,
    });
    c.once('connect', () => res(c));
    c.once('error', rej);
  });
}

/** user -> { publish, subscribe } topic sets, from Mosquitto's acl_file. */
function mosquittoRules(text: string) {
  const rules = new Map<string, { publish: Set<string>; subscribe: Set<string> }>();
  let user = '';
  for (const line of text.split('\n').map((l) => l.trim())) {
    const u = /^user (\S+)$/.exec(line);
    if (u) {
      user = u[1]!;
      rules.set(user, { publish: new Set(), subscribe: new Set() });
    }
    const t = /^topic (read|write|readwrite) (\S+)$/.exec(line);
    if (!t) continue;
    const r = rules.get(user)!;
    if (t[1] !== 'read') r.publish.add(t[2]!);
    if (t[1] !== 'write') r.subscribe.add(t[2]!);
  }
  return rules;
}

/** The same from EMQX's acl.conf allow rules. */
function emqxRules(text: string) {
  const rules = new Map<string, { publish: Set<string>; subscribe: Set<string> }>();
  const body = text
    .split('\n')
    .filter((l) => !l.trim().startsWith('%%'))
    .join('\n');
  for (const m of body.matchAll(/\{allow, \{username, "([^"]+)"\}, (publish|subscribe), \[([^\]]*)\]\}\./g)) {
    const r = rules.get(m[1]!) ?? { publish: new Set<string>(), subscribe: new Set<string>() };
    for (const topic of m[3]!.matchAll(/"([^"]+)"/g)) r[m[2] as 'publish' | 'subscribe'].add(topic[1]!);
    rules.set(m[1]!, r);
  }
  return { rules, body };
}

describe('EMQX acl.conf', () => {
  it('grants every account the same topics as the Mosquitto ACL and denies the rest', () => {
    const mosq = mosquittoRules(readFileSync(join(infra, 'mosquitto/acl'), 'utf8'));
    const { rules, body } = emqxRules(readFileSync(join(infra, 'emqx/acl.conf'), 'utf8'));
    expect([...rules.keys()].sort()).toEqual(MQTT_ACCOUNTS.map((a) => a.username).sort());
    expect([...mosq.keys()].sort()).toEqual(MQTT_ACCOUNTS.map((a) => a.username).sort());
    for (const [user, r] of mosq) {
      expect(rules.get(user)?.publish ?? new Set(), `${user} publish`).toEqual(r.publish);
      expect(rules.get(user)?.subscribe ?? new Set(), `${user} subscribe`).toEqual(r.subscribe);
    }
    // Retain refused on command topics before any allow, and nothing allowed by default.
    const firstAllow = body.indexOf('{allow');
    expect(body.indexOf('{deny, all, {publish, [{retain, true}]}')).toBeLessThan(firstAllow);
    expect(body.trim().endsWith('{deny, all}.')).toBe(true);
    const conf = readFileSync(join(infra, 'emqx/emqx.conf'), 'utf8');
    expect(conf).toMatch(/no_match = deny/);
    expect(conf).toMatch(/deny_action = disconnect/);
  });
});

describe('Mosquitto with infra/mosquitto config and ACL', () => {
  let proc: ChildProcess | null = null;
  const clients: MqttClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})));
    proc?.kill('SIGTERM');
  });

  it('grants exactly the embedded broker publish rules and read scopes', { timeout: 60_000 }, async (ctx) => {
    requireTool(ctx, 'mosquitto', 'mosquitto');
    requireTool(ctx, 'mosquitto_passwd', 'mosquitto');
    const dir = tempDir('mosquitto');
    // The password file as a site makes it: make-passwd.sh over the launcher's secrets.
    const { secrets } = ensureSecrets(join(dir, 'data'));
    passwords = secrets.mqtt;
    const broker = await startMosquitto(dir, join(dir, 'data'));
    proc = broker.proc;
    const { port } = broker;

    // A wrong password is refused: the password file really is in force.
    await expect(
      new Promise((res, rej) => {
        const c = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
          username: 'viewer',
          password: 'wrong',
          reconnectPeriod: 0,
        });
        c.once('connect', res);
        c.once('error', (e) => {
          c.end(true);
          rej(e);
        });
      }),
    ).rejects.toThrow(/Not authorized|Bad username/i);

    const seen: string[] = [];
    const watcher = await login(port, 'viewer');
    clients.push(watcher);
    await watcher.subscribeAsync(['outpost/#', 'homeassistant/#'], { qos: 0 });
    watcher.on('message', (_t, payload) => seen.push(payload.toString()));

    // A relay node must only ever hear its own desired state, never another node's.
    const nodeHeard: string[] = [];
    const node = await login(port, 'relaynode');
    clients.push(node);
    await node.subscribeAsync(['outpost/relaynode/+/desired', 'outpost/controller/main/state'], { qos: 0 });
    node.on('message', (t, payload) => nodeHeard.push(`${t} ${payload}`));

    const topics = [
      'outpost/relaynode/main/state',
      'outpost/relaynode/main/availability',
      'outpost/relaynode/main/event/failsafe_triggered',
      'outpost/relaynode/main/response/status',
      'outpost/relaynode/main/desired',
      'outpost/relaynode/main/request/status',
      'outpost/relaynode/north/state',
      'outpost/relaynode/north/availability',
      'outpost/relaynode/north/desired',
      'outpost/controller/main/state',
      'outpost/controller/main/set',
      'outpost/controller/main/event/generator_started',
      'outpost/notifier/main/response/send',
      'outpost/notifier/main/request/send',
      'outpost/simulator/main/position',
      'outpost/simulator/other/position',
      'outpost/dashboard/main/fleet',
      'homeassistant/status',
      'homeassistant/device/outpost_main/config',
    ];
    const expected: string[] = [];
    const viewer: Principal = { username: 'viewer', role: 'viewer', id: '*' };
    for (const account of MQTT_ACCOUNTS) {
      let client = clients.find((c) => c.options.username === account.username);
      if (!client) {
        client = await login(port, account.username);
        clients.push(client);
      }
      const who: Principal = { username: account.username, role: account.role, id: account.id };
      for (const topic of topics) {
        const payload = `${account.username}|${topic}`;
        await client.publishAsync(topic, payload, { qos: 1 });
        // The watcher is a viewer: requests and responses are not for it to read.
        if (canPublish(who, topic, false, 'outpost').ok && canRead(viewer, topic, 'outpost'))
          expected.push(payload);
      }
    }
    const controller = clients.find((c) => c.options.username === 'controller')!;
    await controller.publishAsync('outpost/controller/main/state', 'END', { qos: 1 });
    await expect.poll(() => seen.includes('END') && nodeHeard.some((m) => m.endsWith(' END'))).toBe(true);
    expect(clients.every((c) => c.connected)).toBe(true);

    expect(seen.filter((m) => m !== 'END').sort()).toEqual(expected.sort());
    // Spelled out, the rules the brief names:
    expect(expected).not.toContain('relaynode|outpost/relaynode/north/state');
    expect(expected).not.toContain('relaynode|outpost/relaynode/main/desired');
    expect(expected.filter((m) => m.startsWith('viewer|'))).toEqual([]);
    expect(expected).toContain('automation|outpost/controller/main/set');
    expect(expected).toContain('controller|outpost/relaynode/north/desired');
    expect(nodeHeard.filter((m) => m.includes('/desired')).sort()).toEqual([
      'outpost/relaynode/main/desired controller|outpost/relaynode/main/desired',
    ]);
  });
});

describe('install-pi.sh with a release bundle', () => {
  it('installs without systemd or system changes, and a second run upgrades in place keeping the data dir', {
    timeout: 420_000,
  }, () => {
    const dir = tempDir('pi');
    const made = spawnSync(process.execPath, [join(root, 'scripts', 'dist', 'package.js'), '--out', dir], {
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    const bundle = join(dir, `outpost-${version}.tgz`);
    // Stand-ins that record any call: --no-system --no-systemd must leave the host alone.
    const stubs = join(dir, 'stubs');
    mkdirSync(stubs);
    for (const cmd of ['apt-get', 'useradd', 'groupadd', 'usermod', 'systemctl', 'curl']) {
      writeFileSync(
        join(stubs, cmd),
        `#!/bin/sh\necho "${cmd} $*" >> "${join(dir, 'host-touched')}"\nexit 1\n`,
      );
      chmodSync(join(stubs, cmd), 0o755);
    }
    const [prefix, data, etc] = ['opt', 'data', 'etc'].map((d) => join(dir, d)) as [string, string, string];
    // Offline: npm takes the tarballs from the cache the repository's own install filled.
    const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
    const install = (...extra: string[]) =>
      spawnSync(
        'sh',
        [
          join(infra, 'install/install-pi.sh'),
          ...['--bundle', bundle, '--prefix', prefix, '--data-dir', data, '--etc', etc],
          ...['--no-system', '--no-systemd', '--npm-cache', cache, ...extra],
        ],
        {
          encoding: 'utf8',
          timeout: 200_000,
          env: { ...process.env, PATH: `${stubs}:${process.env.PATH}`, SCARF_ANALYTICS: 'false' },
        },
      );

    const first = install();
    expect(first.status, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(existsSync(join(prefix, 'bundle.json'))).toBe(true);
    expect(existsSync(join(prefix, 'node_modules', '@outpost', 'runtime'))).toBe(true);
    expect(existsSync(join(prefix, 'node_modules', 'typescript'))).toBe(false);
    expect(statSync(join(data, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(etc, 'controller.env')).mode & 0o777).toBe(0o600);
    expect(first.stdout).toContain('Controller login: admin / ');
    const secrets = readFileSync(join(data, 'secrets.json'), 'utf8');
    mkdirSync(join(data, 'relay-node'));
    writeFileSync(join(data, 'relay-node', 'settings.json'), '{"kept":true}\n');
    writeFileSync(join(prefix, 'left-over-from-the-old-version'), 'x');

    const second = install();
    expect(second.status, `${second.stdout}\n${second.stderr}`).toBe(0);
    // The password was this install's to print once; controller.env never holds it.
    expect(second.stdout).not.toContain('Controller login: admin / ');
    expect(readFileSync(join(etc, 'controller.env'), 'utf8')).not.toContain('ADMIN_PASSWORD');
    expect(readFileSync(join(data, 'secrets.json'), 'utf8')).toBe(secrets);
    expect(readFileSync(join(data, 'relay-node', 'settings.json'), 'utf8')).toBe('{"kept":true}\n');
    expect(existsSync(join(prefix, 'left-over-from-the-old-version'))).toBe(false);
    expect(existsSync(join(prefix, 'scripts', 'dist', 'start.js'))).toBe(true);
    expect(existsSync(`${prefix}.new`) || existsSync(`${prefix}.old`)).toBe(false);
    expect(existsSync(join(dir, 'host-touched')), 'a system command was called').toBe(false);

    // A data dir inside the prefix would be wiped by the next upgrade: refused before anything happens.
    const inside = install('--data-dir', join(prefix, 'data'));
    expect(inside.status).not.toBe(0);
    expect(inside.stderr).toMatch(/inside --prefix/);
    // Two installed trees are many files: removed here, within this test's time, not in afterAll's.
    rmSync(dir, { recursive: true, force: true });
  });
});
