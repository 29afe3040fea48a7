import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '@outpost/runtime';
import { freeTcpPort, TcpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

let sim: TestSim;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  sim = await startTestSim();
  await sim.api.ok('/api/position', { airport_icao: 'KSFO' });
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  await sim.api.ok('/api/control', { action: 'stop' });
  for (const c of cleanups.splice(0)) await c();
});

async function refusedWithBanner(banner: string | RegExp): Promise<void> {
  const res = await sim.api.post('/api/control', { action: 'start' });
  expect(res.status).toBe(409);
  const status = (await sim.api.get('/api/status')).body;
  expect(status.running).toBe(false);
  if (typeof banner === 'string') {
    expect(res.body).toEqual({ detail: banner, banner });
    expect(status.banner).toBe(banner);
  } else {
    expect(res.body.detail).toMatch(banner);
    expect(status.banner).toMatch(banner);
  }
}

describe('server errors at start leave the emulator stopped with a banner', () => {
  it('serial device missing', async () => {
    await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
    await sim.api.ok('/api/serial/select', { device: '/dev/ttyUSB97' });
    await refusedWithBanner('Serial port /dev/ttyUSB97 cannot be opened: device not found');
  });

  it('receiver listen port already in use (UDP)', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => taken.close(() => r())));
    const port = taken.address().port;
    await sim.api.ok('/api/config/modes', { receiver: true, usb_output: false });
    await sim.api.ok('/api/config/network', { protocol: 'udp', listen_port: port });
    await refusedWithBanner(`Address already in use: UDP port ${port} is taken`);
  });

  it('rebroadcaster listen port already in use (TCP)', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => srv.close(() => r())));
    const port = (srv.address() as { port: number }).port;
    await sim.api.ok('/api/config/modes', { rebroadcaster: true, usb_output: false });
    await sim.api.ok('/api/config/network', {
      protocol: 'tcp',
      listen_port: port,
      rebroadcast_udp: true,
      rebroadcast_udp_ip: '127.0.0.1',
    });
    await refusedWithBanner(`Address already in use: TCP port ${port} is taken`);
  });

  it('sender over TCP with nothing listening: connection refused', async () => {
    const port = await freeTcpPort();
    await sim.api.ok('/api/config/modes', { sender: true, usb_output: false });
    await sim.api.ok('/api/config/network', { protocol: 'tcp', target_ip: '127.0.0.1', port });
    await refusedWithBanner(`Connection refused: nothing accepts TCP connections on 127.0.0.1:${port}`);
  });

  it('a later successful start clears the banner', async () => {
    const port = await freeTcpPort();
    await sim.api.ok('/api/config/modes', { sender: true, usb_output: false });
    await sim.api.ok('/api/config/network', { protocol: 'tcp', target_ip: '127.0.0.1', port });
    expect((await sim.api.post('/api/control', { action: 'start' })).status).toBe(409);
    const receiver = await TcpCapture.open(port);
    cleanups.push(() => receiver.close());
    const res = await sim.api.post('/api/control', { action: 'start' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ running: true, banner: null, mode: 'sender' });
    // The NMEA stream over TCP: RMC and GGA each second, CR LF terminated.
    (sim.clock as ManualClock).advance(2000);
    await waitFor(() => receiver.text.split('\r\n').filter((l) => l.startsWith('$GP')).length === 4);
    expect(receiver.text.split('\r\n').map((l) => l.slice(0, 6))).toEqual([
      '$GPRMC',
      '$GPGGA',
      '$GPRMC',
      '$GPGGA',
      '',
    ]);
    const again = await sim.api.post('/api/control', { action: 'start' });
    expect(again).toMatchObject({ status: 409, body: { detail: 'The emulator is already running' } });
    // Stand-alone has no output configured: switching to it while running would stop every output.
    expect(await sim.api.post('/api/config/modes', { standalone: true })).toMatchObject({
      status: 409,
      body: {
        detail: expect.stringContaining(
          'could not run with this change: Select at least one output (USB or EFB)',
        ),
        messages: ['Select at least one output (USB or EFB)'],
      },
    });
    expect((await sim.api.get('/api/status')).body).toMatchObject({ mode: 'sender', running: true });
    await sim.api.ok('/api/control', { action: 'stop' });
  });
});
