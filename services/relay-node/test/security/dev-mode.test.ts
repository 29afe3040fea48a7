import { createLogger } from '@outpost/runtime';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { startTestBroker } from '../peers.js';
import { startTestNode } from '../service-helpers.js';

/**
 * Mock hardware is what a relay node gets on any host that is not a Pi. It alone must not open the
 * endpoints that press the EPO contact or show the mock GPIO: they need DEV_MODE=true, said in the log.
 */
async function start(devMode: boolean) {
  const logged: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'relaynode',
    level: 'info',
    destination: { write: (line: string) => logged.push(JSON.parse(line)) },
  });
  const n = await startTestNode({ config: { devMode }, logger });
  const devWarnings = () => logged.filter((l) => l.level === 40 && String(l.msg).includes('DEV_MODE'));
  return { n, devWarnings };
}

describe('relay node development endpoints need DEV_MODE=true (security)', () => {
  it('mock hardware without DEV_MODE: /api/dev/* is 404 with the right key, and the EPO stays released', async () => {
    const { n, devWarnings } = await start(false);
    try {
      expect((await n.api('GET', '/api/dev/status')).status).toBe(404);
      expect((await n.api('POST', '/api/dev/epo', { engaged: true })).status).toBe(404);
      expect((await n.api('GET', '/api/relay/state')).body).toMatchObject({ physical_safety_engaged: false });
      expect(devWarnings()).toEqual([]);
      const spec = (await n.api('GET', '/api/openapi.json')).body as { paths: Record<string, unknown> };
      expect(Object.keys(spec.paths).filter((p) => p.startsWith('/api/dev/'))).toEqual([]);
    } finally {
      await n.stop();
    }
  });

  it('the same over MQTT: without DEV_MODE the dev-epo request is refused and the contact stays released', async () => {
    const broker = await startTestBroker();
    const mqttConfig = { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' };
    const answer = async (devMode: boolean) => {
      const n = await startTestNode({ config: { devMode, mqtt: mqttConfig } });
      const client = await mqtt.connectAsync(broker.url, { clientId: `dev-${devMode}-${process.pid}` });
      try {
        await n.bus!.waitConnected(5_000);
        const reply = new Promise<Record<string, unknown>>((resolve) =>
          client.on('message', (_t, p) => resolve(JSON.parse(p.toString()))),
        );
        await client.subscribeAsync('outpost/relaynode/main/response/dev-epo', { qos: 1 });
        await client.publishAsync(
          'outpost/relaynode/main/request/dev-epo',
          JSON.stringify({ transaction: `tx-${devMode}`, data: { engaged: true } }),
          { qos: 1 },
        );
        const r = await reply;
        return { r, engaged: n.node.isEpoEngaged };
      } finally {
        await client.endAsync();
        await n.stop();
      }
    };
    try {
      const off = await answer(false);
      expect(off.r).toMatchObject({ status: 'error' });
      expect(off.engaged).toBe(false);
      const on = await answer(true);
      expect(on.r).toMatchObject({ status: 'ok' });
      expect(on.engaged).toBe(true);
    } finally {
      await broker.close();
    }
  }, 30_000);

  it('DEV_MODE=true: the endpoints work and one warning line says so', async () => {
    const { n, devWarnings } = await start(true);
    try {
      expect((await n.api('GET', '/api/dev/status')).status).toBe(200);
      const pressed = await n.api('POST', '/api/dev/epo', { engaged: true });
      expect(pressed.status).toBe(200);
      expect(pressed.body).toMatchObject({ physical_safety_engaged: true });
      expect(devWarnings()).toHaveLength(1);
      expect(devWarnings()[0]?.msg).toMatch(/DEV_MODE=true: development endpoints at \/api\/dev\//);
      // Still behind the key.
      expect((await n.api('GET', '/api/dev/status', undefined, null)).status).toBe(401);
    } finally {
      await n.stop();
    }
  });
});
