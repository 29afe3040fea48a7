import type { ManualClock } from '@outpost/runtime';
import { SerialPort } from 'serialport';
import { afterAll, describe, expect, it } from 'vitest';
import { ptyPair, type PtyPair, skipWithout, tempDir, waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { WsClient } from '../helpers/ws.js';

const skip = skipWithout('socat');

async function reader(path: string): Promise<{ port: SerialPort; text: () => string }> {
  let text = '';
  const port = new SerialPort({ path, baudRate: 115200 });
  port.on('data', (d: Buffer) => {
    text += d.toString('ascii');
  });
  port.on('error', () => {});
  await new Promise((r) => port.once('open', r));
  return { port, text: () => text };
}

describe.skipIf(skip)('USB adapter unplugged while running', () => {
  const dir = tempDir('sim-replug-');
  let pty: PtyPair | undefined;
  let sim: TestSim | undefined;
  let ws: WsClient | undefined;
  afterAll(async () => {
    ws?.close();
    await sim?.close();
    await pty?.close();
    dir.remove();
  });

  it('keeps running with a banner, and resumes output when the device is back', async () => {
    pty = await ptyPair(dir.path);
    const first = await reader(pty.outputLink);
    sim = await startTestSim();
    ws = await WsClient.connect(sim.url, sim.api.cookie);
    await sim.api.ok('/api/position', { airport_icao: 'KSFO' });
    await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
    // The stable link lives in a temp dir, not /dev, which the REST body would refuse.
    sim.service.setSerial({ device: pty.inputLink });
    await sim.api.ok('/api/control', { action: 'start' });
    const clock = sim.clock as ManualClock;
    clock.advance(1000);
    await waitFor(() => first.text().includes('$GPRMC'));

    // Unplug: the other end disappears.
    await new Promise((r) => first.port.close(r));
    await pty.close();
    clock.advance(1000);
    const banner = `USB serial device ${pty.inputLink} was disconnected; retrying`;
    await ws.next('status_update', (m) => m.data.banner === banner);
    expect((await sim.api.get('/api/status')).body).toMatchObject({ running: true, banner });

    // Replug: a new pty pair behind the same stable path.
    pty = await ptyPair(dir.path);
    const second = await reader(pty.outputLink);
    const seen = ws.messages.length;
    clock.advance(5000);
    await ws.next('status_update', (m) => m.data.banner === null, 3000, seen);
    clock.advance(1000);
    await waitFor(() => second.text().includes('$GPGGA'));
    await new Promise((r) => second.port.close(r));
  });
});
