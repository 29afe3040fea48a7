import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUsersFile, verifyPassword } from '@outpost/broker';
import { afterAll, describe, expect, it } from 'vitest';
import {
  METRICS_TOKEN_FILE_NAME,
  MQTT_ACCOUNTS,
  metricsEnv,
  resolveSecrets,
  SecretError,
} from '../src/secrets.js';
import { SERVICES } from '../src/services.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'outpost-secrets-'));
  dirs.push(d);
  return d;
};
const fileOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'));

describe('secrets: environment, then secrets.json, then generated', () => {
  it('the dashboard sites login: generated once, kept, replaced by DASHBOARD_SITES_PASSWORD, only the dashboard gets it', () => {
    const dir = tempDir();
    const first = resolveSecrets(dir, {});
    expect(first.sources.dashboard_sites).toBe('generated');
    expect(fileOf(dir).DASHBOARD_SITES_PASSWORD).toBe(first.secrets.DASHBOARD_SITES_PASSWORD);
    const again = resolveSecrets(dir, {});
    expect(again.sources.dashboard_sites).toBe('file');
    expect(again.secrets.DASHBOARD_SITES_PASSWORD).toBe(first.secrets.DASHBOARD_SITES_PASSWORD);
    const set = resolveSecrets(dir, { DASHBOARD_SITES_PASSWORD: 'my-own-sites-pw' });
    expect(set.sources.dashboard_sites).toBe('environment');
    expect(set.secrets.DASHBOARD_SITES_PASSWORD).toBe('my-own-sites-pw');
    expect(() => resolveSecrets(dir, { DASHBOARD_SITES_PASSWORD: 'short' })).toThrow(
      /DASHBOARD_SITES_PASSWORD/,
    );
    const dashboard = SERVICES.find((s) => s.name === 'dashboard')!;
    const env = dashboard.env({ secrets: set.secrets, adminUsername: 'admin', ports: {} } as never);
    expect(env.DASHBOARD_SITES_AUTH).toBe('sites:my-own-sites-pw');
  });

  it('generates every secret on the first run, into a 0600 file, and says so', () => {
    const dir = tempDir();
    const r = resolveSecrets(dir, {});
    expect(r.sources).toMatchObject({
      JWT_SECRET: 'generated',
      RELAYNODE_API_SECRET: 'generated',
      ADMIN_PASSWORD: 'generated',
      ADMIN_USERNAME: 'default',
      simulator_login: 'generated',
    });
    // Its own password, never the generator's admin password.
    expect(r.secrets.SIMULATOR_PASSWORD).toMatch(/^\S{12,}$/);
    expect(r.secrets.SIMULATOR_PASSWORD).not.toBe(r.secrets.ADMIN_PASSWORD);
    expect(Object.values(r.sources.mqtt)).toEqual(MQTT_ACCOUNTS.map(() => 'generated'));
    expect(r.createdAdminPassword).toBe(true);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(fileOf(dir)).toEqual(r.secrets);
  });

  it('uses a value set in the environment over the file, and remembers it for the next run', () => {
    const dir = tempDir();
    const first = resolveSecrets(dir, {});
    const env = {
      ADMIN_PASSWORD: 'correct-horse-battery',
      RELAYNODE_API_SECRET: 'k'.repeat(40),
      JWT_SECRET: 'j'.repeat(64),
      ADMIN_USERNAME: 'operator',
    };
    const set = resolveSecrets(dir, env);
    expect(set.secrets).toMatchObject({ ...env });
    expect(set.secrets.ADMIN_PASSWORD).not.toBe(first.secrets.ADMIN_PASSWORD);
    expect(set.sources).toMatchObject({
      ADMIN_PASSWORD: 'environment',
      RELAYNODE_API_SECRET: 'environment',
      JWT_SECRET: 'environment',
      ADMIN_USERNAME: 'environment',
    });
    expect(set.createdAdminPassword).toBe(false);

    // The variables removed: the file's values, which are the ones last in effect.
    const later = resolveSecrets(dir, {});
    expect(later.secrets).toMatchObject(env);
    expect(later.sources).toMatchObject({ ADMIN_PASSWORD: 'file', RELAYNODE_API_SECRET: 'file' });
    expect(later.secrets.mqtt).toEqual(first.secrets.mqtt);
  });

  it('a broker account password from MQTT_PASSWORD_<ACCOUNT> reaches the broker users file', async () => {
    const dir = tempDir();
    resolveSecrets(dir, {});
    const r = resolveSecrets(dir, { MQTT_PASSWORD_AUTOMATION: 'home-assistant-pw-1' });
    expect(r.sources.mqtt.automation).toBe('environment');
    expect(r.sources.mqtt.viewer).toBe('file');
    const { users } = readUsersFile(join(dir, 'mqtt-users.json'));
    const automation = users.find((u) => u.username === 'automation')!;
    expect(await verifyPassword(automation, 'home-assistant-pw-1')).toBe(true);
  });

  it('the simulator login is set by PASSWORD (with USERNAME), never by USERNAME alone', () => {
    const dir = tempDir();
    const generated = resolveSecrets(dir, { USERNAME: 'desktop-user' });
    expect(generated.sources.simulator_login).toBe('generated');
    expect(generated.secrets.SIMULATOR_USERNAME).toBeUndefined();
    expect(resolveSecrets(dir, {}).secrets.SIMULATOR_PASSWORD).toBe(generated.secrets.SIMULATOR_PASSWORD);
    const r = resolveSecrets(dir, { USERNAME: 'pilot', PASSWORD: 'simulator-pw' });
    expect(r.secrets).toMatchObject({ SIMULATOR_USERNAME: 'pilot', SIMULATOR_PASSWORD: 'simulator-pw' });
    expect(resolveSecrets(dir, {}).sources.simulator_login).toBe('file');
  });

  it.each([
    ['ADMIN_PASSWORD', 'short', /ADMIN_PASSWORD: must be at least 10 characters/],
    ['JWT_SECRET', 'x'.repeat(20), /JWT_SECRET: must be at least 32 characters/],
    ['RELAYNODE_API_SECRET', 'tiny', /RELAYNODE_API_SECRET: must be at least 16/],
    ['NOTIFIER_API_SECRET', 'n'.repeat(20), /NOTIFIER_API_SECRET: must be at least 32/],
    ['MQTT_PASSWORD_VIEWER', 'abc', /MQTT_PASSWORD_VIEWER: must be at least 12/],
  ])('an invalid %s stops with a message naming it and changes nothing', (name, value, message) => {
    const dir = tempDir();
    resolveSecrets(dir, {});
    const before = readFileSync(join(dir, 'secrets.json'), 'utf8');
    expect(() => resolveSecrets(dir, { [name]: value })).toThrow(SecretError);
    expect(() => resolveSecrets(dir, { [name]: value })).toThrow(message);
    expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).toBe(before);
  });

  it('a damaged file is named, never silently replaced', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secrets.json'), '{"JWT_SECRET": 1');
    expect(() => resolveSecrets(dir, {})).toThrow(/secrets\.json is not valid JSON/);
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ ADMIN_PASSWORD: 'x' }));
    expect(() => resolveSecrets(dir, {})).toThrow(/ADMIN_PASSWORD must be at least 10/);
    expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).toContain('"x"');
  });

  it('a file from an earlier version is read as it is, and filled in', () => {
    const dir = tempDir();
    const old = {
      JWT_SECRET: 'a'.repeat(64),
      RELAYNODE_API_SECRET: 'b'.repeat(43),
      ADMIN_PASSWORD: 'c'.repeat(16),
      mqtt: { controller: 'd'.repeat(32) },
    };
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify(old));
    const r = resolveSecrets(dir, {});
    expect(r.secrets).toMatchObject(old);
    expect(r.sources.mqtt.controller).toBe('file');
    expect(r.sources.mqtt.viewer).toBe('generated');
  });
});

describe('the notifier key', () => {
  it('is its own secret, given to the controller and the notifier only; the notifier never gets JWT_SECRET', () => {
    const dir = tempDir();
    const r = resolveSecrets(dir, {});
    expect(r.sources.NOTIFIER_API_SECRET).toBe('generated');
    expect(r.secrets.NOTIFIER_API_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(r.secrets.NOTIFIER_API_SECRET).not.toBe(r.secrets.JWT_SECRET);
    expect(resolveSecrets(dir, {}).secrets.NOTIFIER_API_SECRET).toBe(r.secrets.NOTIFIER_API_SECRET);

    const ctx = {
      secrets: r.secrets,
      adminUsername: 'admin',
      ports: Object.fromEntries(SERVICES.map((s) => [s.name, s.defaultPort])),
      host: '0.0.0.0',
    };
    const holders = SERVICES.filter((s) => s.env(ctx).NOTIFIER_API_SECRET === r.secrets.NOTIFIER_API_SECRET);
    expect(holders.map((s) => s.name).sort()).toEqual(['controller', 'notifier']);
    const notifier = SERVICES.find((s) => s.name === 'notifier')!.env(ctx);
    expect(Object.values(notifier)).not.toContain(r.secrets.JWT_SECRET);
  });
});

describe('the metrics token', () => {
  it('is generated once into secrets.json and a 0600 metrics-token file, and given to every process off loopback only', () => {
    const dir = tempDir();
    const { secrets } = resolveSecrets(dir, {});
    const token = fileOf(dir).METRICS_TOKEN as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(readFileSync(join(dir, METRICS_TOKEN_FILE_NAME), 'utf8').trim()).toBe(token);
    expect(statSync(join(dir, METRICS_TOKEN_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(resolveSecrets(dir, {}).secrets.METRICS_TOKEN).toBe(token);

    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'pi.local'])
      expect(metricsEnv(host, {}, secrets), host).toEqual({ METRICS_TOKEN: token });
    for (const host of ['127.0.0.1', '::1', 'localhost', '[::1]'])
      expect(metricsEnv(host, {}, secrets), host).toEqual({});
    // A credential of the user's own wins: theirs reaches the services through the environment.
    expect(metricsEnv('0.0.0.0', { METRICS_TOKEN: 'mine-0123456789abcdef' }, secrets)).toEqual({});
    expect(metricsEnv('0.0.0.0', { METRICS_BASIC_AUTH: 'prom:a-long-password' }, secrets)).toEqual({});
  });
});
