import type { ManualClock } from '@outpost/runtime';
import { SerialPort } from 'serialport';
import { afterAll, describe, expect, it } from 'vitest';
import { freeUdpPort, sendUdp } from '../helpers/net.js';
import { ptyPair, type PtyPair, skipWithout, tempDir, waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const skip = skipWithout('socat');

describe.skipIf(skip)('rebroadcaster USB fan-out', () => {
  const dir = tempDir('sim-rebro-');
  let pty: PtyPair | undefined;
  let sim: TestSim | undefined;
  let reader: SerialPort | undefined;
  afterAll(async () => {
    await sim?.close();
    if (reader?.isOpen) await new Promise((r) => reader!.close(r));
    await pty?.close();
    dir.remove();
  });

  it('received positions come out of the USB device as NMEA once a second; losing the feed stops them', async () => {
    pty = await ptyPair(dir.path);
    let text = '';
    reader = new SerialPort({ path: pty.output, baudRate: 115200 });
    reader.on('data', (d: Buffer) => {
      text += d.toString('ascii');
    });
    await new Promise((r) => reader!.once('open', r));

    const listen = await freeUdpPort();
    sim = await startTestSim();
    await sim.api.ok('/api/config/modes', { rebroadcaster: true });
    await sim.api.ok('/api/serial/select', { device: pty.input });
    await sim.api.ok('/api/config/network', { protocol: 'udp', listen_port: listen, rebroadcast_usb: true });
    await sim.api.ok('/api/control', { action: 'start' });
    const clock = sim.clock as ManualClock;

    await sendUdp(listen, '$CYGNUS:lat=-33.9461&lon=151.1772&heading=160&magvar=12&alt=21&airspeed=0');
    await waitFor(() => sim!.service.status().lat === -33.9461);
    clock.advance(1000);
    await waitFor(() => text.includes('$GPGGA'));
    const gga = text.split('\r\n').find((l) => l.startsWith('$GPGGA'))!;
    expect(gga).toMatch(/^\$GPGGA,\d{6}\.\d{2},3356\.7660\d*,S,15110\.6320\d*,E,1,/);

    // Six seconds without input: the feed is stale, the USB output goes quiet.
    clock.advance(6000);
    await new Promise((r) => setTimeout(r, 100));
    const before = text.length;
    clock.advance(2000);
    await new Promise((r) => setTimeout(r, 200));
    expect(text.length).toBe(before);
    const status = (await sim.api.get('/api/status')).body as { outputs: { usb: { bytes_written: number } } };
    expect(status.outputs.usb.bytes_written).toBeGreaterThan(0);
  });
});
