import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from './helpers/processes.js';

/**
 * `git clone`, then the README's `npm test` on a machine without the Debian packages the suites drive:
 * the `pretest` step (scripts/test-peers.sh) installs them with apt-get as root or through `sudo -n`,
 * and otherwise stops with one line naming them. The Python modules are hidden from Debian's
 * interpreter by a PYTHONPATH folder whose `aiosmtpd`, `dbusmock`, `pymodbus` and `serial_asyncio` fail
 * to import, as on a machine that lacks python3-aiosmtpd, python3-dbusmock, python3-pymodbus and
 * python3-serial-asyncio.
 */
const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.log('test-peers: skipped, the tests do not run as root (it runs the step as root and as nobody)');

let dir = '';
let clone = '';
let hidden = '';
const MODULES = ['aiosmtpd', 'dbusmock', 'pymodbus', 'serial_asyncio'];
const PACKAGES = ['python3-aiosmtpd', 'python3-dbusmock', 'python3-pymodbus', 'python3-serial-asyncio'];

beforeAll(() => {
  if (!asRoot) return;
  dir = mkdtempSync(join(tmpdir(), 'outpost-test-peers-'));
  chmodSync(dir, 0o755); // nobody reads the clone
  clone = join(dir, 'clone');
  const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '-q', '--no-checkout', root, clone]);
  execFileSync('git', ['-C', clone, 'checkout', '-q', head]);
  hidden = join(dir, 'hidden');
  for (const mod of MODULES) {
    mkdirSync(join(hidden, mod), { recursive: true });
    writeFileSync(
      join(hidden, mod, '__init__.py'),
      `raise ModuleNotFoundError("No module named '${mod}'", name='${mod}')\n`,
    );
  }
  execFileSync('chmod', ['-R', 'a+rX', dir]);
}, 60_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!asRoot)('npm test prepares its own peers on a fresh clone', () => {
  it('without root or sudo, `npm test` stops with one line naming the Debian packages to install', () => {
    const npmCache = join(dir, 'npm-cache');
    mkdirSync(npmCache, { mode: 0o777 });
    chmodSync(npmCache, 0o777);
    const run = spawnSync('npm', ['test', '--silent'], {
      cwd: clone,
      encoding: 'utf8',
      uid: 65534, // nobody: neither root nor allowed to sudo
      gid: 65534,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        PYTHONPATH: hidden,
        npm_config_cache: npmCache,
        npm_config_update_notifier: 'false',
      },
      timeout: 60_000,
    });
    expect(run.status, `${run.stdout}${run.stderr}`).not.toBe(0);
    const lines = `${run.stdout}${run.stderr}`.trim().split('\n');
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^outpost: npm test needs these Debian packages: .*\(sudo apt-get install .*\), or run it as root$/,
    );
    for (const pkg of PACKAGES) expect(lines[0]).toContain(pkg);
    // Nothing was built: it stopped before the install and build of the pretest step.
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
  }, 90_000);

  it('as root it installs them with apt-get, then checks again', () => {
    // apt-get and systemctl stand in for the real ones here: "installing" makes the modules importable.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const log = join(dir, 'apt.log');
    writeFileSync(
      join(bin, 'apt-get'),
      `#!/bin/sh\necho "$*" >> ${log}\ncase " $* " in *" install "*) for m in ${MODULES.join(' ')}; do : > ${hidden}/$m/__init__.py; done ;; esac\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const run = spawnSync('bash', [join(clone, 'scripts', 'test-peers.sh')], {
      cwd: clone,
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, PYTHONPATH: hidden },
      timeout: 60_000,
    });
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls[0]).toMatch(/update/);
    expect(calls[1]).toMatch(
      /^-o DPkg::Lock::Timeout=\d+ install -y -qq --no-install-recommends .*python3-aiosmtpd/,
    );
    for (const pkg of PACKAGES) expect(calls[1]).toContain(pkg);
    expect(run.stdout).toMatch(
      new RegExp(`^outpost: installing the test peers: .*${PACKAGES.join(' ')}\\n$`),
    );
    // Installed, the modules are found: whatever else this machine lacks, they are not named again.
    if (run.status !== 0) {
      expect(run.stderr).toMatch(/still missing after apt-get install/);
      expect(run.stderr).not.toMatch(new RegExp(PACKAGES.join('|')));
    }
  }, 90_000);
});
