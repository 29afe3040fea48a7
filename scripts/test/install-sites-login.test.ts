import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The dashboard's sites login under systemd: install-pi.sh's secrets step and its closing lines, run as
 * the script has them (cut out of it like upgrade-links.test.sh does), on a first install, a re-run and
 * an upgrade from a version whose secrets.json had no sites password. The password is generated once,
 * stored root-only in secrets.json, given to the dashboard unit in dashboard.env (0600), printed once by
 * the run that made it and never again, and kept across upgrades.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const install = readFileSync(join(root, 'infra', 'install', 'install-pi.sh'), 'utf8');
const lines = install.split('\n');
const from = (re: RegExp) => lines.findIndex((l) => re.test(l));
const secretsStep = lines.slice(from(/^FIRST_INSTALL=0$/), from(/^if \[ "\$TIME_FROM_CONTROLLER" = 1 \] \|\| /));
const closing = lines.slice(from(/^# The admin password is printed only by the install that generated it/));

const work = mkdtempSync(join(tmpdir(), 'outpost-sites-login-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const script = join(work, 'step.sh');
writeFileSync(
  script,
  ['say() { echo "==> $*"; }', 'die() { echo "install-pi: $*" >&2; exit 1; }', ...secretsStep, ...closing].join(
    '\n',
  ),
);
const dataDir = join(work, 'data');
const etc = join(work, 'etc');

function runInstall(services = 'broker controller relay-node notifier dashboard'): string {
  const r = spawnSync('sh', ['-eu', script], {
    cwd: root,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      ETC: etc,
      NODE: process.execPath,
      SERVICES: services,
      // No user or ownership changes: what is checked here is the secret's way, not DATA_DIR's owner.
      SYSTEM: '0',
      JOIN: '',
      MQTT_URL: '',
      DATABASE_URL: '',
    },
    timeout: 60_000,
  });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  return `${r.stdout}${r.stderr}`;
}

const secretsFile = () => JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
const dashboardEnv = () => readFileSync(join(etc, 'dashboard.env'), 'utf8');
const count = (text: string, part: string) => text.split(part).length - 1;

describe('install-pi.sh: the dashboard sites login', () => {
  it('is generated once, given to the dashboard unit, printed by the run that made it, and kept across upgrades', {
    timeout: 120_000,
  }, () => {
    const first = runInstall();
    const password = secretsFile().DASHBOARD_SITES_PASSWORD as string;
    expect(password).toMatch(/^\S{10,}$/);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(dashboardEnv()).toContain(`\nDASHBOARD_SITES_AUTH=sites:${password}\n`);
    expect(statSync(join(etc, 'dashboard.env')).mode & 0o777).toBe(0o600);
    // Printed once, on the closing line, and nowhere else in what the install wrote out.
    expect(count(first, password)).toBe(1);
    expect(first).toContain(`Dashboard generator sites login: sites / ${password} (shown once;`);
    // No other unit gets it.
    for (const unit of ['controller', 'relay-node', 'notifier', 'simulator', 'broker'])
      expect(readFileSync(join(etc, `${unit}.env`), 'utf8'), unit).not.toContain(password);

    // An upgrade: the same password, not printed again; the closing line says where it is.
    const again = runInstall();
    expect(secretsFile().DASHBOARD_SITES_PASSWORD).toBe(password);
    expect(dashboardEnv()).toContain(`\nDASHBOARD_SITES_AUTH=sites:${password}\n`);
    expect(again).not.toContain(password);
    expect(again).toContain(`sites login: sites, with the password kept in ${dataDir}/secrets.json`);

    // An upgrade from a version that kept no sites password: this run makes one and prints it once.
    const { DASHBOARD_SITES_PASSWORD: _gone, ...older } = secretsFile();
    writeFileSync(join(dataDir, 'secrets.json'), `${JSON.stringify(older, null, 2)}\n`, { mode: 0o600 });
    const upgraded = runInstall();
    const fresh = secretsFile().DASHBOARD_SITES_PASSWORD as string;
    expect(fresh).toMatch(/^\S{10,}$/);
    expect(fresh).not.toBe(password);
    expect(dashboardEnv()).toContain(`\nDASHBOARD_SITES_AUTH=sites:${fresh}\n`);
    expect(count(upgraded, fresh)).toBe(1);

    // A host without the dashboard says nothing about its login.
    expect(runInstall('broker controller relay-node notifier')).not.toContain('sites login');
  });
});
