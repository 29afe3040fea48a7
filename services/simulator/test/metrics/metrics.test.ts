import type { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort, sendUdp } from '../helpers/net.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const JSON_LINE = JSON.stringify({ lat: 47.45, lon: -122.3, alt_ft: 4500, speed_kts: 180, heading: 270 });

async function scrape(s: TestSim): Promise<string> {
  const res = await fetch(`${s.url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}
const value = (text: string, series: RegExp): number => {
  const m = new RegExp(`^${series.source}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`no ${series.source} in /metrics`);
  return Number(m[1]);
};

describe('simulator /metrics', () => {
  it('counts ticks and receiver lines by result across runs, and shows running', async () => {
    const s = await startTestSim();
    cleanups.push(() => s.close());
    const port = await freeUdpPort();
    await s.api.ok('/api/config/modes', { receiver: true });
    await s.api.ok('/api/config/network', { protocol: 'udp', listen_port: port });
    await s.api.ok('/api/control', { action: 'start' });

    const receiver = async () =>
      ((await s.api.get('/api/status')).body.receiver ?? {}) as Record<string, number>;
    const until = async (pred: (r: Record<string, number>) => boolean) => {
      const deadline = Date.now() + 5000;
      while (!pred(await receiver())) {
        if (Date.now() > deadline) throw new Error('receiver did not count the lines');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await sendUdp(port, JSON_LINE);
    await sendUdp(port, 'not a position');
    await sendUdp(port, Buffer.alloc(8000, 0x41));
    await until((r) => r.messages_received === 3);

    const clock = s.clock as ManualClock;
    clock.advance(1000);
    clock.advance(1000);
    let text = await scrape(s);
    expect(value(text, /simulator_receiver_lines_total\{result="accepted"[^}]*\}/)).toBe(1);
    expect(value(text, /simulator_receiver_lines_total\{result="rejected"[^}]*\}/)).toBe(1);
    expect(value(text, /simulator_receiver_lines_total\{result="oversize"[^}]*\}/)).toBe(1);
    expect(value(text, /simulator_ticks_total/)).toBe(2);
    expect(value(text, /simulator_running/)).toBe(1);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{.*route="\/api\/status"/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total/m);

    // Lines after the last scrape still count when the run ends before the next one.
    await sendUdp(port, 'garbage again');
    await until((r) => r.messages_received === 4);
    // A new run starts the status counts from zero; the counters keep growing.
    await s.api.ok('/api/control', { action: 'stop' });
    await s.api.ok('/api/control', { action: 'start' });
    await sendUdp(port, JSON_LINE);
    await until((r) => r.messages_received === 1);
    text = await scrape(s);
    expect(value(text, /simulator_receiver_lines_total\{result="accepted"[^}]*\}/)).toBe(2);
    expect(value(text, /simulator_receiver_lines_total\{result="rejected"[^}]*\}/)).toBe(2);
    await s.api.ok('/api/control', { action: 'stop' });
    expect(value(await scrape(s), /simulator_running/)).toBe(0);
  });
});
