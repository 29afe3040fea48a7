import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leased } from '../lease-fields.js';
import { startTestNode } from '../service-helpers.js';

/** The release version: the root package.json's, reported by every service. */
const RELEASE = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

type Node = Awaited<ReturnType<typeof startTestNode>>;
const HB = { heartbeat_interval: 10, armed: true, relay_on: true };

describe('relay node REST API', () => {
  let n: Node;
  beforeAll(async () => {
    n = await startTestNode();
  });
  afterAll(async () => {
    await n.stop();
  });
  afterEach(async () => {
    await n.api('POST', '/api/relay/off');
    await n.api('POST', '/api/dev/epo', { engaged: false });
  });

  it('every /api endpoint needs X-API-Key: missing 401, wrong 403, both with {detail}', async () => {
    for (const [m, p] of [
      ['GET', '/api/health'],
      ['GET', '/api/failsafe'],
      ['POST', '/api/relay/off'],
      ['POST', '/api/heartbeat'],
      ['GET', '/api/system'],
    ]) {
      expect(await n.api(m!, p!, undefined, null)).toEqual({
        status: 401,
        body: { detail: 'Missing X-API-Key header' },
      });
      expect(await n.api(m!, p!, undefined, 'wrong')).toEqual({
        status: 403,
        body: { detail: 'Invalid API key' },
      });
    }
    expect((await n.api('GET', '/health', undefined, null)).body).toEqual({ status: 'healthy' });
    expect((await n.api('GET', '/health')).body).toMatchObject({
      status: 'healthy',
      broker: 'not_used',
      version: RELEASE,
    });
    expect(
      ((await n.api('GET', '/api/openapi.json')).body as { info: { version: string } }).info.version,
    ).toBe(RELEASE);
    expect((await n.api('GET', '/api/health')).body).toMatchObject({
      status: 'healthy',
      relay: { relay_on: false },
    });
  });

  it('boots OFF and disarmed; ON is refused until armed and a heartbeat is live', async () => {
    expect(n.io.level('GPIO16')).toBe(0);
    expect((await n.api('GET', '/api/relay/state')).body).toMatchObject({
      relay_on: false,
      armed: false,
      mock_mode: true,
    });
    expect(await n.api('POST', '/api/relay/on')).toEqual({
      status: 409,
      body: { detail: 'Cannot turn relay on - relay node is not armed' },
    });
    await n.api('POST', '/api/relay/arm');
    const noLease = await n.api('POST', '/api/relay/on');
    expect(noLease.status).toBe(409);
    expect(noLease.body.detail).toMatch(/no heartbeat/);
    await n.api('POST', '/api/heartbeat', leased({ ...HB, relay_on: false }));
    // The relay key alone cannot start the generator: ON follows only a lease that asks for it.
    expect((await n.api('POST', '/api/relay/on')).body.detail).toMatch(/lease asks for the relay OFF/);
    expect(n.io.level('GPIO16')).toBe(0);
    await n.api('POST', '/api/heartbeat', leased(HB));
    await n.api('POST', '/api/relay/off');
    expect((await n.api('POST', '/api/relay/on')).body).toMatchObject({ relay_on: true });
    expect(n.io.level('GPIO16')).toBe(1);
    expect((await n.api('POST', '/api/relay/off')).body).toMatchObject({ relay_on: false });
    expect(n.io.level('GPIO16')).toBe(0);
  });

  it('POST /api/heartbeat applies the intended state and replies with the failsafe status', async () => {
    const r = await n.api('POST', '/api/heartbeat', leased(HB));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      running: true,
      failsafe_triggered: false,
      timeout_seconds: 30,
      heartbeat_interval: 10,
      timeout_source: 'genmaster',
      accepted: true,
      relay_on: true,
      armed: true,
      physical_safety_engaged: false,
    });
    expect(n.io.level('GPIO16')).toBe(1);
    const disarm = await n.api('POST', '/api/relay/disarm');
    expect(disarm.body).toMatchObject({ relay_on: false, armed: false });
  });

  it('a REST heartbeat answering no recent challenge, or unsigned, is not executed; an OFF always is', async () => {
    const now = Date.now();
    const first = leased(HB, now, { seq: 1, challenge: null });
    const epoch = first.epoch;
    const held = await n.api('POST', '/api/heartbeat', first);
    expect(held.body).toMatchObject({ accepted: false, verdict: 'expired', relay_on: false });
    const forged = { ...leased(HB, now, { epoch, seq: 2 }), sig: 'A'.repeat(86) };
    expect((await n.api('POST', '/api/heartbeat', forged)).body).toMatchObject({
      verdict: 'unsigned',
      relay_on: false,
    });
    expect(n.io.level('GPIO16')).toBe(0);
    await n.api('POST', '/api/heartbeat', leased(HB, now, { epoch, seq: 2 }));
    expect(n.io.level('GPIO16')).toBe(1);
    const stale = await n.api(
      'POST',
      '/api/heartbeat',
      leased({ ...HB, relay_on: false }, now, { epoch, seq: 1 }),
    );
    expect(stale.body).toMatchObject({ verdict: 'stale', relay_on: false });
    expect(n.io.level('GPIO16')).toBe(0);
    const lease = await n.api('GET', '/api/lease');
    expect(lease.body).toMatchObject({
      lease_protocol: 2,
      epoch,
      applied_seq: 2,
      refusal: { verdict: 'stale', seq: 1 },
      controller_key: true,
    });
    expect(lease.body.challenge).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('bad input: 400 for broken JSON, 422 naming fields, nothing changes', async () => {
    expect((await n.api('POST', '/api/heartbeat', '{nope')).status).toBe(400);
    const missing = await n.api('POST', '/api/heartbeat', { heartbeat_interval: 10, armed: true });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain('relay_on');
    const partial = await n.api('POST', '/api/heartbeat', { ...HB, epoch: '12' });
    expect(partial.status).toBe(422);
    expect(partial.body.detail).toContain('seq');
    expect(partial.body.detail).toContain('sig');
    expect(n.io.level('GPIO16')).toBe(0);
  });

  it('EPO (mock): engaging drops the relay at once and refuses ON; releasing does not restart', async () => {
    await n.api('POST', '/api/heartbeat', leased(HB));
    expect(n.io.level('GPIO16')).toBe(1);
    const on = await n.api('POST', '/api/dev/epo', { engaged: true });
    expect(on.body).toMatchObject({ physical_safety_engaged: true, relay_on: false });
    expect(n.io.level('GPIO16')).toBe(0);
    expect((await n.api('POST', '/api/heartbeat', leased(HB))).body).toMatchObject({
      relay_on: false,
      physical_safety_engaged: true,
    });
    expect((await n.api('POST', '/api/relay/on')).status).toBe(409);
    const off = await n.api('POST', '/api/dev/epo', { engaged: false });
    expect(off.body).toMatchObject({ physical_safety_engaged: false, relay_on: false });
    expect((await n.api('GET', '/api/dev/status')).body).toMatchObject({
      gpio: { relay: { pin: 'GPIO16', level: 0 } },
    });
  });

  it('reboot/shutdown need {confirm: true} and are refused while the relay is ON', async () => {
    expect((await n.api('POST', '/api/system/reboot', {})).status).toBe(422);
    await n.api('POST', '/api/heartbeat', leased(HB));
    const refused = await n.api('POST', '/api/system/reboot', { confirm: true });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/relay is ON/);
    await n.api('POST', '/api/relay/off');
    expect((await n.api('POST', '/api/system/shutdown', { confirm: true })).body).toEqual({
      status: 'shutting_down',
    });
    expect((await n.api('GET', '/api/dev/status')).body.power_calls).toEqual(['poweroff']);
  });

  it('GET /api/system reports CPU, memory, disk and network', async () => {
    const r = await n.api('GET', '/api/system');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      cpu: { cores: expect.any(Number) },
      memory: { total_bytes: expect.any(Number) },
    });
    expect(Array.isArray(r.body.disk)).toBe(true);
  });

  it('GET /metrics exposes the safety state', async () => {
    await n.api('POST', '/api/heartbeat', leased(HB));
    const text = await (await fetch(`${n.url}/metrics`)).text();
    expect(text).toMatch(/relaynode_relay_on\{service="relaynode"\} 1/);
    expect(text).toMatch(/relaynode_failsafe_triggered\{service="relaynode"\} 0/);
  });

  it('WiFi without a system bus answers 503 with a reason', async () => {
    const r = await n.api('GET', '/api/system/wifi/scan');
    expect(r.status).toBe(503);
    expect(r.body.detail).toMatch(/not available/);
  });
});

describe('administration and notifications', () => {
  it('notifier URLs, cooldowns and the reboot schedule persist in settings.json across restarts', async () => {
    const rx = await startHttpPeer();
    let n = await startTestNode();
    try {
      const bad = await n.api('POST', '/api/relaynode/notifications', { notifier_urls: ['tgram://bad/1'] });
      expect(bad.status).toBe(422);
      const urls = [`json://127.0.0.1:${rx.port}/hook`];
      const set = await n.api('POST', '/api/relaynode/notifications', { notifier_urls: urls });
      expect(set.body).toMatchObject({
        source: 'settings',
        notifier_urls: [`json://127.0.0.1:${rx.port}/****`],
      });
      await n.api('POST', '/api/relaynode/notifications/settings', {
        failsafe_cooldown_minutes: 15,
        restored_cooldown_minutes: 2,
      });
      const sched = { enabled: true, day: 'sunday', hour: 4, minute: 15 };
      expect((await n.api('POST', '/api/relaynode/reboot-schedule', sched)).body).toEqual(sched);
      expect((await n.api('POST', '/api/relaynode/reboot-schedule', { ...sched, hour: 24 })).status).toBe(
        422,
      );
      const test = await n.api('POST', '/api/relaynode/notifications/test');
      expect(test.body).toMatchObject({ results: [{ ok: true }] });
      expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({ title: 'Test notification' });
      const file = JSON.parse(readFileSync(join(n.config.dataDir, 'relay-node', 'settings.json'), 'utf8'));
      expect(file).toMatchObject({
        notifier_urls: urls,
        failsafe_cooldown_minutes: 15,
        reboot_schedule: sched,
      });

      // restart on the same data directory
      await n.close();
      n = await startTestNode({ config: { dataDir: n.config.dataDir } });
      expect((await n.api('GET', '/api/relaynode/notifications')).body).toMatchObject({
        failsafe_cooldown_minutes: 15,
        restored_cooldown_minutes: 2,
        source: 'settings',
      });
      expect((await n.api('GET', '/api/relaynode/reboot-schedule')).body).toEqual(sched);
    } finally {
      await n.stop();
      await rx.close();
    }
  });

  it('failsafe: relay OFF, Failsafe Triggered to NOTIFIER_URLS, Restored on the next heartbeat', async () => {
    const rx = await startHttpPeer();
    const clock = new ManualClock(Date.now());
    const n = await startTestNode({
      clock,
      config: { notifierUrls: [`json://127.0.0.1:${rx.port}/alerts`], hardwareSafety: false },
    });
    try {
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      expect(n.io.level('GPIO16')).toBe(1);
      clock.advance(30_000);
      expect(n.io.level('GPIO16')).toBe(0);
      expect((await n.api('GET', '/api/failsafe')).body).toMatchObject({ failsafe_triggered: true });
      await rx.waitFor(1);
      expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({
        title: 'Failsafe Triggered',
        type: 'failure',
      });
      expect((await n.api('POST', '/api/heartbeat', leased(HB, clock.now()))).body).toMatchObject({
        failsafe_triggered: false,
        relay_on: true,
      });
      await rx.waitFor(2);
      expect(JSON.parse(rx.requests[1]!.body)).toMatchObject({
        title: 'Heartbeat Restored',
        type: 'success',
      });
    } finally {
      await n.stop();
      await rx.close();
    }
  });

  it('scheduled reboot runs only with the relay OFF; skipped for the day while running', async () => {
    const sched = { enabled: true, day: 'sunday', hour: 4, minute: 15 };
    const at = new Date(2026, 5, 7, 4, 14, 50).getTime(); // a Sunday, local time
    const idleClock = new ManualClock(at);
    const busyClock = new ManualClock(at);
    const idle = await startTestNode({ clock: idleClock, config: { hardwareSafety: false } });
    const busy = await startTestNode({ clock: busyClock, config: { hardwareSafety: false } });
    try {
      for (const n of [idle, busy]) await n.api('POST', '/api/relaynode/reboot-schedule', sched);
      // idle: the relay is OFF at 04:15 -> reboot through the power control
      idleClock.advance(60_000);
      // busy: the generator runs through 04:15 -> skipped, and not retried later that day
      for (let i = 0; i < 12; i++) {
        await busy.api('POST', '/api/heartbeat', leased(HB, busyClock.now()));
        busyClock.advance(5_000);
      }
      await busy.api('POST', '/api/relay/off');
      busyClock.advance(60_000);
      await new Promise((r) => setTimeout(r, 20));
      expect(idle.power).toMatchObject({ calls: ['reboot'] });
      expect(busy.power).toMatchObject({ calls: [] });
      expect(busy.settings.get().reboot_handled_day).toBe('2026-06-07');
    } finally {
      await idle.stop();
      await busy.stop();
    }
  });
});
