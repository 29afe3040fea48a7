import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseEnvShape, ConfigError, envBool, envPort, parseConfig } from '../src/config.js';

const schema = z.object({
  ...baseEnvShape,
  PORT: envPort(8000),
  MOCK: envBool(false),
  SECRET: z.string().min(16),
});

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const cfg = parseConfig(schema, { SECRET: 'x'.repeat(16) });
    expect(cfg).toMatchObject({
      PORT: 8000,
      MOCK: false,
      MQTT_TOPIC_PREFIX: 'outpost',
      DATA_DIR: './data',
      SERVICE_ID: 'main',
    });
  });

  it('treats an empty value as unset', () => {
    expect(parseConfig(schema, { SECRET: 'x'.repeat(16), PORT: '' }).PORT).toBe(8000);
  });

  it('reads booleans the way unit files write them', () => {
    for (const [raw, want] of [
      ['true', true],
      ['1', true],
      ['YES', true],
      ['off', false],
      ['0', false],
    ] as const) {
      expect(parseConfig(schema, { SECRET: 'x'.repeat(16), MOCK: raw }).MOCK).toBe(want);
    }
  });

  it('names the bad variable', () => {
    expect(() => parseConfig(schema, { SECRET: 'x'.repeat(16), PORT: 'eighty' })).toThrow(
      /^Invalid environment variable PORT: /,
    );
    expect(() => parseConfig(schema, { SECRET: 'x'.repeat(16), MQTT_URL: 'localhost' })).toThrow(ConfigError);
  });

  it("takes the broker's Unix socket as MQTT_URL (mqtt+unix:///path), an absolute path only", () => {
    const url = 'mqtt+unix:///run/outpost-broker/mqtt.sock';
    expect(parseConfig(schema, { SECRET: 'x'.repeat(16), MQTT_URL: url }).MQTT_URL).toBe(url);
    for (const bad of ['mqtt+unix://run/mqtt.sock', 'ws+unix:///run/mqtt.sock', 'mqtt+unix:///'])
      expect(() => parseConfig(schema, { SECRET: 'x'.repeat(16), MQTT_URL: bad }), bad).toThrow(ConfigError);
  });

  it('says a required variable is not set', () => {
    expect(() => parseConfig(schema, {})).toThrow(
      'Invalid environment variable SECRET: required but not set',
    );
  });

  it('stops a process with exactly one line naming the variable', () => {
    const script = fileURLToPath(new URL('./fixtures/load-config.mjs', import.meta.url));
    const out = spawnSync(process.execPath, [script], {
      env: { PATH: process.env.PATH, MQTT_PORT: '99999' },
      encoding: 'utf8',
    });
    expect(out.status).toBe(1);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid environment variable MQTT_PORT: /);
  });
});
