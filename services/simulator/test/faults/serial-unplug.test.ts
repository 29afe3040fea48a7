import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '@outpost/runtime';
import { browserTestsEnabled, DESKTOP, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import { SerialPort } from 'serialport';
import { afterEach, describe, expect, it } from 'vitest';
import { skipWithout, stopProcess, tempDir, waitFor } from '../helpers/peers.js';
import { startTestSim, TEST_PASSWORD, TEST_USER, type TestSim } from '../helpers/sim.js';
import { WsClient } from '../helpers/ws.js';

const skip = skipWithout('socat');
/** SerialOutput's retry interval (not configurable through the environment or the API). */
const REOPEN_MS = 5000;
const NMEA = /^\$GP([A-Z]{3}),[^*\r\n]*\*([0-9A-F]{2})$/;

/**
 * A USB-serial adapter stand-in: a socat pty pair behind two stable links, like /dev/serial/by-id.
 * unplug() kills socat outright (no clean shutdown, as when the cable is pulled) and removes the
 * links, as udev does when the adapter goes away.
 */
class Adapter {
  private constructor(
    private readonly proc: ChildProcess,
    readonly device: string,
    readonly consumer: string,
  ) {}

  static async plug(dir: string): Promise<Adapter> {
    const device = join(dir, 'usb-gps');
    const consumer = join(dir, 'usb-gps-consumer');
    const proc = spawn(
      'socat',
      [`pty,raw,echo=0,link=${device},mode=600`, `pty,raw,echo=0,link=${consumer},mode=600`],
      { stdio: 'ignore' },
    );
    await waitFor(() => existsSync(device) && existsSync(consumer));
    return new Adapter(proc, device, consumer);
  }

  async unplug(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGKILL');
    await exited;
    rmSync(this.device, { force: true });
    rmSync(this.consumer, { force: true });
  }

  close(): Promise<void> {
    return stopProcess(this.proc);
  }
}

/** What a GPS consumer on the other end of the cable reads. */
class Consumer {
  text = '';
  private constructor(private readonly port: SerialPort) {
    port.on('data', (d: Buffer) => {
      this.text += d.toString('ascii');
    });
    // The far end vanishing is the point of these tests.
    port.on('error', () => {});
  }

  static async open(path: string): Promise<Consumer> {
    const port = new SerialPort({ path, baudRate: 115200 });
    const c = new Consumer(port);
    await new Promise((r) => port.once('open', r));
    return c;
  }

  /** Complete sentences with a correct checksum, read since `from` characters into the stream. */
  sentences(from = 0): string[] {
    return this.text
      .slice(from)
      .split('\r\n')
      .filter((line) => {
        const m = NMEA.exec(line);
        if (!m) return false;
        let sum = 0;
        for (const ch of line.slice(1, line.indexOf('*'))) sum ^= ch.charCodeAt(0);
        return sum === Number.parseInt(m[2]!, 16);
      });
  }

  close(): Promise<void> {
    if (!this.port.isOpen) return Promise.resolve();
    return new Promise((r) => this.port.close(() => r()));
  }
}

interface UsbStatus {
  device: string;
  open: boolean;
  bytes_written: number;
  writes_dropped: number;
  error: string | null;
}
interface Status {
  running: boolean;
  started_at: string;
  banner: string | null;
  output_errors: { usb: string | null };
  outputs: { usb: UsbStatus };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A stand-alone run on real timers writing NMEA to the adapter, with a consumer reading it. */
async function runningOnAdapter(): Promise<{
  sim: TestSim;
  adapter: Adapter;
  consumer: Consumer;
  dir: string;
}> {
  const dir = tempDir('sim-unplug-');
  cleanups.push(() => dir.remove());
  const adapter = await Adapter.plug(dir.path);
  cleanups.push(() => adapter.close());
  const consumer = await Consumer.open(adapter.consumer);
  cleanups.push(() => consumer.close());
  const sim = await startTestSim({}, { clock: systemClock });
  cleanups.push(() => sim.close());
  await sim.api.ok('/api/position', { airport_icao: 'KSFO' });
  await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
  // The stable link lives in a temp dir, not /dev, which the REST body would refuse.
  sim.service.setSerial({ device: adapter.device });
  await sim.api.ok('/api/control', { action: 'start' });
  await waitFor(() => consumer.sentences().some((s) => s.startsWith('$GPGGA')), 3000);
  return { sim, adapter, consumer, dir: dir.path };
}

const status = async (sim: TestSim) => (await sim.api.get<Status>('/api/status')).body;

async function until<T>(probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)('USB-serial adapter pulled out mid-run (real timers)', () => {
  it('keeps running with the output marked disconnected, then reconnects on its own and NMEA flows again', async () => {
    const { sim, adapter, dir } = await runningOnAdapter();
    const ws = await WsClient.connect(sim.url, sim.api.cookie);
    cleanups.push(() => ws.close());
    const before = await status(sim);
    expect(before.outputs.usb).toMatchObject({ open: true, error: null, device: adapter.device });
    expect(before.banner).toBeNull();

    await adapter.unplug();
    const unpluggedAt = Date.now();
    const banner = `USB serial device ${adapter.device} was disconnected; retrying`;
    // The console's banner comes from status_update over the WebSocket.
    await ws.next('status_update', (m) => m.data.banner === banner, 3000);
    const down = await status(sim);
    expect(down).toMatchObject({
      running: true,
      started_at: before.started_at,
      banner,
      output_errors: { usb: banner },
      outputs: { usb: { open: false, error: banner } },
    });
    expect((await sim.api.get('/health')).body).toMatchObject({ status: 'healthy', running: true });

    // The run loop carries on without the device: positions keep coming, the port's NMEA is dropped
    // (counted), not queued in memory until the device returns.
    const seen = ws.messages.length;
    await ws.next('position_update', () => true, 2500, seen);
    const dropping = await until(async () => {
      const st = await status(sim);
      return st.outputs.usb.writes_dropped > down.outputs.usb.writes_dropped ? st : null;
    }, 2500);
    expect(dropping.outputs.usb.bytes_written).toBe(down.outputs.usb.bytes_written);

    // Still unplugged when the first retry comes round: that attempt fails and another is scheduled.
    await new Promise((r) => setTimeout(r, REOPEN_MS + 1000 - (Date.now() - unpluggedAt)));
    expect((await status(sim)).outputs.usb).toMatchObject({ open: false, error: banner });

    // Plugged back in at the same path: a new pty behind the same links.
    const again = await Adapter.plug(dir);
    cleanups.push(() => again.close());
    const consumer = await Consumer.open(again.consumer);
    cleanups.push(() => consumer.close());
    const seenBack = ws.messages.length;
    await ws.next('status_update', (m) => m.data.banner === null, REOPEN_MS + 3000, seenBack);
    const reconnectMs = Date.now() - unpluggedAt;
    await waitFor(() => consumer.sentences().some((s) => s.startsWith('$GPGGA')), 3000);
    const up = await status(sim);
    expect(up).toMatchObject({
      running: true,
      started_at: before.started_at,
      banner: null,
      output_errors: { usb: null },
      outputs: { usb: { open: true, error: null } },
    });
    expect(up.outputs.usb.bytes_written).toBeGreaterThan(down.outputs.usb.bytes_written);
    console.log(`serial unplug: back ${reconnectMs} ms after the unplug (retry interval ${REOPEN_MS} ms)`);
  }, 40_000);
});

describe.skipIf(skip || !browserTestsEnabled())(
  'USB-serial adapter pulled out: the console banner (Chromium)',
  () => {
    let browser: E2EBrowser | undefined;
    afterEach(async () => {
      await browser?.close();
      browser = undefined;
    });

    it('shows the disconnected banner while the emulator keeps running, and clears it once the device is back', async () => {
      const { sim, adapter, dir } = await runningOnAdapter();
      browser = await openBrowser();
      const { page } = await browser.newSession(DESKTOP);
      await page.goto(sim.url);
      await page.locator('input[name=username]').fill(TEST_USER);
      await page.locator('input[name=password]').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
      await expect.poll(() => page.getByTestId('run-state').textContent()).toBe('running');

      await adapter.unplug();
      const banner = page
        .getByRole('alert')
        .filter({ hasText: `USB serial device ${adapter.device} was disconnected; retrying` });
      await banner.waitFor({ timeout: 3000 });
      expect(await page.getByTestId('run-state').textContent()).toBe('running');
      await expect.poll(() => page.getByRole('button', { name: 'Stop', exact: true }).isEnabled()).toBe(true);

      const again = await Adapter.plug(dir);
      cleanups.push(() => again.close());
      await banner.waitFor({ state: 'detached', timeout: REOPEN_MS + 3000 });
      expect(await page.getByTestId('run-state').textContent()).toBe('running');
      expect(browser.errors).toEqual([]);
    }, 40_000);
  },
);
