import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchStacks } from './helpers/scratch.js';
import { adminToken, api, controllerHost, relayHost } from './helpers/sites.js';
import { signalGroup, sleep, until, within } from './helpers/processes.js';

/**
 * Two hosts whose clocks disagree, as after a power cut at an offline site: each Pi boots with its own
 * last saved time. The relay node's host runs under libfaketime (its wall clock hours off, then
 * stepped by 10 minutes while running, as NTP does after boot; its monotonic clock untouched, as the
 * kernel's is). Start, stop, EPO and failsafe must behave as with equal clocks, and the controller
 * must show the offset.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
const CI = process.env.CI === 'true';
if (CI && !existsSync(LIBFAKETIME))
  throw new Error('libfaketime is required under CI=true (Debian: faketime)');

const INTERVAL_MS = 1000;
const FAILSAFE_SECONDS = 3;

const { running, tempDir } = scratchStacks(30_000);

describe.skipIf(!existsSync(LIBFAKETIME)).each([
  ['2 h ahead', 7_200],
  ['2 h behind', -7_200],
])('two hosts, the relay node host %s', (_, skewSeconds) => {
  it('start, stop, EPO and failsafe hold; a 10 min step while running changes nothing; the offset is shown', {
    timeout: 240_000,
  }, async () => {
    const hostA = tempDir('clock-a');
    const hostB = tempDir('clock-b');
    const a = await controllerHost(hostA, running);
    const secretsA = JSON.parse(readFileSync(join(hostA, 'secrets.json'), 'utf8'));

    const fakeTime = join(hostB, 'faketime');
    writeFileSync(fakeTime, `${skewSeconds >= 0 ? '+' : ''}${skewSeconds}\n`);
    const { run: b, port: relayPort } = await relayHost(hostB, a.join, running, {
      failsafeSeconds: FAILSAFE_SECONDS,
      env: {
        DEV_MODE: 'true',
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: fakeTime,
        FAKETIME_NO_CACHE: '1',
        // The kernel's monotonic clock does not move when NTP steps the wall clock.
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    });

    const controller = `http://127.0.0.1:${a.ports.CONTROLLER_PORT}`;
    const relay = `http://127.0.0.1:${relayPort}`;
    const key = { 'X-API-Key': secretsA.RELAYNODE_API_SECRET, 'content-type': 'application/json' };
    const relayOn = async () =>
      ((await (await fetch(`${relay}/api/relay/state`, { headers: key })).json()) as { relay_on: boolean })
        .relay_on;
    const token = await adminToken(controller);
    const state = async () => (await api(controller, '/api/generator/state', { token })).body;
    const post = (path: string, body: unknown = {}) =>
      api(controller, path, { method: 'POST', token, body: JSON.stringify(body) });

    await until(
      'the controller to see the relay node',
      async () => (await state()).slave_connected === true,
      30_000,
    );
    await until(
      'the controller to measure the offset',
      async () => typeof (await state()).relaynode_clock_offset_seconds === 'number',
      10_000,
    );
    expect(Number((await state()).relaynode_clock_offset_seconds)).toBeCloseTo(skewSeconds, -1);
    const health = await api(controller, '/health', { token });
    expect(JSON.stringify(health.body.warnings)).toMatch(
      /relay node clock 7200\.\d s (ahead of|behind) the controller/,
    );

    // Anyone with the relay key tries to take the link over first: made-up epochs, huge seq, ON and
    // OFF, expiry far ahead. None carries the controller's signature.
    const forged = (epoch: string, seq: number, relay_on: boolean) => ({
      heartbeat_interval: 1,
      armed: true,
      relay_on,
      epoch,
      seq,
      issued_at: Date.now(),
      expires_at: Date.now() + 86_400_000,
      challenge: null,
      sig: 'A'.repeat(86),
    });
    for (const f of [
      forged('999999999999999', 2 ** 52, false),
      forged('1', 1, true),
      forged('888', 5, true),
    ]) {
      const r = await fetch(`${relay}/api/heartbeat`, {
        method: 'POST',
        headers: key,
        body: JSON.stringify(f),
      });
      expect(((await r.json()) as { verdict: string }).verdict).toBe('unsigned');
    }
    expect(await relayOn()).toBe(false);

    expect((await post('/api/generator/arm')).status).toBe(200);
    const startAt = performance.now();
    const start = await post('/api/generator/start');
    expect(start.body).toMatchObject({ relay_confirmed: true, relay_status: 'confirmed' });
    await until('relay ON at the node', relayOn, 2 * INTERVAL_MS);
    console.log(`clock ${skewSeconds} s: start → relay ON ${(performance.now() - startAt).toFixed(0)} ms`);

    // NTP steps the node's wall clock by +10 min while the relay is ON.
    writeFileSync(fakeTime, `${skewSeconds + 600 >= 0 ? '+' : ''}${skewSeconds + 600}\n`);
    await sleep(4 * INTERVAL_MS);
    expect(await relayOn()).toBe(true);
    const during = await state();
    expect(during.running, JSON.stringify(during)).toBe(true);
    expect(during.failsafe_triggered, JSON.stringify(during)).toBeFalsy();
    expect(during.health_alarm, JSON.stringify(during)).toBeNull();
    await until(
      'the offset to follow the step',
      async () => Math.abs(Number((await state()).relaynode_clock_offset_seconds) - (skewSeconds + 600)) < 5,
      5_000,
    );

    const offMs = await (async () => {
      expect((await post('/api/generator/stop')).status).toBe(200);
      return within('relay OFF at the node', async () => !(await relayOn()), 2 * INTERVAL_MS);
    })();
    console.log(`clock ${skewSeconds} s: stop → relay OFF ${offMs.toFixed(0)} ms`);

    // EPO at the node: the running generator stops, and a start is refused.
    expect((await post('/api/generator/start')).status).toBe(200);
    await until('relay ON again', relayOn, 2 * INTERVAL_MS);
    await fetch(`${relay}/api/dev/epo`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ engaged: true }),
    });
    await until('relay OFF on EPO', async () => !(await relayOn()), 1_000);
    await until(
      'the controller to see the EPO',
      async () => (await state()).slave_physical_safety_engaged === true,
      5_000,
    );
    expect((await post('/api/generator/start')).status).toBe(409);
    await fetch(`${relay}/api/dev/epo`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ engaged: false }),
    });
    await until('EPO released', async () => (await state()).slave_physical_safety_engaged === false, 5_000);

    // The controller host loses power during a run: the node's failsafe drops the relay in time.
    expect((await post('/api/generator/start')).status).toBe(200);
    await until('relay ON before the power cut', relayOn, 2 * INTERVAL_MS);
    const killedAt = performance.now();
    await signalGroup(a.run, 'SIGKILL');
    await until('relay OFF by the failsafe', async () => !(await relayOn()), (FAILSAFE_SECONDS + 3) * 1000);
    expect(performance.now() - killedAt).toBeLessThanOrEqual((FAILSAFE_SECONDS + 1) * 1000);
    await signalGroup(b, 'SIGINT');
  });
});
