import { describe, expect, it } from 'vitest';
import { CHILD_CREDENTIALS, childEnv } from '../src/child-env.js';

/** What the launcher hands each child of its own environment (launcher-secrets.test.ts checks /proc). */
const launcherEnv = {
  PATH: '/usr/bin',
  GPIO_MODE: 'mock',
  LOG_LEVEL: 'info',
  TLS_CERT_FILE: '/data/tls/server.pem',
  DATA_DIR: '/data',
  JWT_SECRET: 'jwt',
  ADMIN_PASSWORD: 'admin-pw',
  RELAYNODE_API_SECRET: 'relay',
  NOTIFIER_API_SECRET: 'notifier',
  MQTT_PASSWORD_AUTOMATION: 'ha-pw',
  DATABASE_URL: 'postgres://u:p@db/x',
  USERNAME: 'pilot',
  PASSWORD: 'sim-pw',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET_ACCESS_KEY: 'aws',
  METRICS_TOKEN: 'metrics-token-0123456789',
  NOTIFIER_URLS: 'tgram://bot-token/chat',
  REDIS_URL: 'redis://:pw@redis.lan:6379',
};

describe('each child’s environment', () => {
  it('passes settings to every child and each credential only to the children that use it', () => {
    const sim = childEnv('simulator', launcherEnv, { MQTT_USERNAME: 'simulator', MQTT_PASSWORD: 'sim-mqtt' });
    expect(sim).toMatchObject({ PATH: '/usr/bin', GPIO_MODE: 'mock', TLS_CERT_FILE: '/data/tls/server.pem' });
    for (const name of [
      'JWT_SECRET',
      'ADMIN_PASSWORD',
      'RELAYNODE_API_SECRET',
      'NOTIFIER_API_SECRET',
      'MQTT_PASSWORD_AUTOMATION',
      'DATABASE_URL',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
    ])
      expect(sim[name], name).toBeUndefined();
    expect(sim).toMatchObject({
      PASSWORD: 'sim-pw',
      MQTT_PASSWORD: 'sim-mqtt',
      METRICS_TOKEN: launcherEnv.METRICS_TOKEN,
    });

    const dashboard = childEnv('dashboard', launcherEnv);
    expect(dashboard.DATA_DIR).toBeUndefined();
    expect(dashboard.PASSWORD).toBeUndefined();
    const controller = childEnv('controller', launcherEnv);
    expect(controller).toMatchObject({
      JWT_SECRET: 'jwt',
      ADMIN_PASSWORD: 'admin-pw',
      DATABASE_URL: launcherEnv.DATABASE_URL,
    });
    expect(controller.PASSWORD).toBeUndefined();
    expect(childEnv('relay-node', launcherEnv)).toMatchObject({
      RELAYNODE_API_SECRET: 'relay',
      DATA_DIR: '/data',
    });
    expect(childEnv('relay-node', launcherEnv).JWT_SECRET).toBeUndefined();
    expect(childEnv('broker', launcherEnv)).toMatchObject({ DATA_DIR: '/data' });
    expect(childEnv('broker', launcherEnv).RELAYNODE_API_SECRET).toBeUndefined();
    expect(childEnv('broker', launcherEnv).REDIS_URL).toBe(launcherEnv.REDIS_URL);
    expect(childEnv('relay-node', launcherEnv).NOTIFIER_URLS).toBe(launcherEnv.NOTIFIER_URLS);
    for (const other of ['simulator', 'dashboard', 'controller', 'notifier'] as const) {
      expect(childEnv(other, launcherEnv).NOTIFIER_URLS, other).toBeUndefined();
      expect(childEnv(other, launcherEnv).REDIS_URL, other).toBeUndefined();
    }
  });

  it('holds what the launcher made for a child to the same list', () => {
    expect(childEnv('dashboard', {}, { JWT_SECRET: 'leak', DASHBOARD_PORT: '8090' })).toEqual({
      DASHBOARD_PORT: '8090',
    });
  });

  it('names every child the launcher starts', () => {
    expect(Object.keys(CHILD_CREDENTIALS).sort()).toEqual(
      ['broker', 'controller', 'dashboard', 'notifier', 'relay-node', 'simulator'].sort(),
    );
  });
});
