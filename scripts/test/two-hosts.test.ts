import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopOrphanServer } from '../src/embedded-db.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSecrets } from '../src/secrets.js';
import { haveMosquitto, type Mosquitto, startMosquitto } from './helpers/mosquitto.js';
import { adminToken, api, controllerHost, relayHost } from './helpers/sites.js';
import { type Launched, portOpen, signalGroup, until } from './helpers/processes.js';

/**
 * A site as it is built: the controller on one host, the relay node on a Pi in the generator shed.
 * Two launchers with their own DATA_DIR stand for the two hosts; the second knows nothing but the join
 * string the first printed.
 */
const CI = process.env.CI === 'true';
if (CI && !haveMosquitto) throw new Error('mosquitto and mosquitto_passwd are required under CI=true');

const FAILSAFE_SECONDS = 4;

const dirs: string[] = [];
const running: Launched[] = [];
const brokers: Mosquitto[] = [];
afterAll(async () => {
  for (const r of running) await signalGroup(r, 'SIGKILL', 5_000);
  for (const b of brokers) b.stop();
  for (const d of dirs) {
    await stopOrphanServer(d);
    rmSync(d, { recursive: true, force: true });
  }
}, 30_000);

describe.skipIf(!haveMosquitto && !CI).each(['embedded broker', 'Mosquitto'])(
  'two hosts on loopback, %s',
  (kind) => {
    it('the relay node paired by the join string closes its relay on a start, and drops it when the controller host dies', {
      timeout: 150_000,
    }, async () => {
      const hostA = mkdtempSync(join(tmpdir(), 'outpost-host-a-'));
      const hostB = mkdtempSync(join(tmpdir(), 'outpost-host-b-'));
      dirs.push(hostA, hostB);

      let mqttUrl: string | undefined;
      if (kind === 'Mosquitto') {
        ensureSecrets(hostA);
        const broker = await startMosquitto(hostA, hostA);
        brokers.push(broker);
        mqttUrl = broker.url;
      }
      const a = await controllerHost(hostA, running, mqttUrl ? { mqttUrl } : {});
      expect(a.join).toMatch(/^outpost-join-2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{11}$/);
      // Loopback is all this test has; the command says a real second host could not use it.
      expect(a.joinStderr).toMatch(/only this host reaches; give the address the relay node uses/);
      const secretsA = JSON.parse(readFileSync(join(hostA, 'secrets.json'), 'utf8'));

      // Host B: nothing copied by hand but the join string.
      const {
        run: b,
        port: relayPort,
        output: outB,
      } = await relayHost(hostB, a.join, running, {
        failsafeSeconds: FAILSAFE_SECONDS,
      });
      expect(outB).toMatch(/joined site "main"/);
      expect(outB).not.toMatch(/MQTT broker +mqtt:\/\/127\.0\.0\.1:\d+ +ws:/); // no broker of its own
      const secretsB = JSON.parse(readFileSync(join(hostB, 'secrets.json'), 'utf8'));
      expect(secretsB.RELAYNODE_API_SECRET).toBe(secretsA.RELAYNODE_API_SECRET);
      expect(secretsB.mqtt.relaynode).toBe(secretsA.mqtt.relaynode);

      const controller = `http://127.0.0.1:${a.ports.CONTROLLER_PORT}`;
      const relay = `http://127.0.0.1:${relayPort}`;
      const relayOn = async () => {
        const res = await fetch(`${relay}/api/relay/state`, {
          headers: { 'X-API-Key': secretsA.RELAYNODE_API_SECRET },
        });
        return ((await res.json()) as { relay_on: boolean }).relay_on;
      };

      const token = await adminToken(controller);
      await until(
        'the controller to see the relay node on the other host',
        async () => (await api(controller, '/api/generator/state', { token })).body.slave_connected === true,
        30_000,
      );
      expect(
        (await api(controller, '/api/generator/arm', { method: 'POST', token, body: '{}' })).status,
      ).toBe(200);
      expect(
        (await api(controller, '/api/generator/start', { method: 'POST', token, body: '{}' })).status,
      ).toBe(200);
      await until('relay ON on the second host', relayOn, 15_000);

      // The controller host loses power: every process of its launcher dies at once.
      const killedAt = Date.now();
      await signalGroup(a.run, 'SIGKILL');
      await until(
        'relay OFF on the second host',
        async () => !(await relayOn()),
        (FAILSAFE_SECONDS + 4) * 1000,
      );
      const tookMs = Date.now() - killedAt;
      expect(tookMs).toBeLessThanOrEqual((FAILSAFE_SECONDS + 2) * 1000);
      expect(await portOpen(a.ports.CONTROLLER_PORT)).toBe(false);

      await signalGroup(b, 'SIGINT');
      expect(b.proc.exitCode).toBe(0);
    });
  },
);
