import { createConnection } from 'node:net';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { EfbOutput } from '../../src/io/efb-output.js';
import { StartError } from '../../src/io/start-error.js';
import { TcpSender } from '../../src/io/tcp-sender.js';
import { listenTcp, LineSplitter } from '../../src/io/tcp-listener.js';
import { listenUdp } from '../../src/io/udp-listener.js';
import { UdpSender } from '../../src/io/udp-sender.js';
import { silentLogger as logger } from '../helpers/log.js';
import { freeTcpPort, sendUdp, TcpCapture, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('UDP sender and EFB fan-out', () => {
  it('sends one datagram per target', async () => {
    const a = await UdpCapture.open();
    const b = await UdpCapture.open();
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const s = await UdpSender.create({ logger });
    cleanups.push(() => s.close());
    s.send('$GPGGA,x*00\r\n', [
      { host: '127.0.0.1', port: a.port },
      { host: '127.0.0.1', port: b.port },
    ]);
    await waitFor(() => a.received.length === 1 && b.received.length === 1);
    expect(a.received[0]!.text).toBe('$GPGGA,x*00\r\n');
  });

  it('EFB line reaches a loopback broadcast listener and each unicast target', async () => {
    const bcast = await UdpCapture.open('127.255.255.255');
    const port = bcast.port;
    const uni = await UdpCapture.open('127.0.0.1', port);
    cleanups.push(
      () => bcast.close(),
      () => uni.close(),
    );
    const efb = await EfbOutput.create({
      logger,
      port,
      broadcastAddress: '127.255.255.255',
      ips: ['127.0.0.1', '127.0.0.1'],
    });
    cleanups.push(() => efb.close());
    expect(efb.targets).toHaveLength(2);
    efb.send('XGPSTest,-122.0,37.0,100.0,90.0,51.4');
    await waitFor(() => bcast.received.length >= 1 && uni.received.length >= 1);
    expect(bcast.received[0]!.text).toBe('XGPSTest,-122.0,37.0,100.0,90.0,51.4');
    expect(uni.received[0]!.text).toBe('XGPSTest,-122.0,37.0,100.0,90.0,51.4');
  });
});

describe('TCP sender', () => {
  it('streams lines to the target and redials after the peer restarts', async () => {
    const clock = new ManualClock();
    const cap = await TcpCapture.open();
    const port = cap.port;
    const s = await TcpSender.connect({ host: '127.0.0.1', port, clock, logger, reconnectMs: 1000 });
    cleanups.push(() => s.close());
    s.send('line 1\n');
    await waitFor(() => cap.text === 'line 1\n');
    await cap.close();
    await waitFor(() => s.error !== null);
    expect(s.error).toContain('lost');
    const cap2 = await TcpCapture.open(port);
    cleanups.push(() => cap2.close());
    clock.advance(1000);
    await waitFor(() => s.error === null);
    s.send('line 2\n');
    await waitFor(() => cap2.text === 'line 2\n');
  });

  it('a refused connection is a start error with the connection-refused banner', async () => {
    const port = await freeTcpPort();
    const err = await TcpSender.connect({ host: '127.0.0.1', port, clock: new ManualClock(), logger }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(StartError);
    expect(err.banner).toBe(`Connection refused: nothing accepts TCP connections on 127.0.0.1:${port}`);
  });
});

describe('receiver listeners', () => {
  it('UDP: one datagram is one message; a busy port is refused with a banner', async () => {
    const got: string[] = [];
    const l = await listenUdp({ port: 0, host: '127.0.0.1', logger, onMessage: (t) => got.push(t) });
    cleanups.push(() => l.close());
    await sendUdp(l.port, '{"lat":1}\n');
    await sendUdp(l.port, 'second');
    await waitFor(() => got.length === 2);
    expect(got).toEqual(['{"lat":1}\n', 'second']);
    const err = await listenUdp({ port: l.port, host: '127.0.0.1', logger, onMessage: () => {} }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(StartError);
    expect(err.banner).toBe(`Address already in use: UDP port ${l.port} is taken`);
  });

  it('TCP: newline-delimited lines across chunks; an endless line is dropped, the next one kept', async () => {
    const got: string[] = [];
    let oversize = 0;
    const l = await listenTcp({
      port: 0,
      host: '127.0.0.1',
      logger,
      onMessage: (t) => got.push(t),
      onOversize: () => oversize++,
    });
    cleanups.push(() => l.close());
    const c = createConnection({ host: '127.0.0.1', port: l.port });
    await new Promise((r) => c.once('connect', r));
    c.write('first li');
    c.write('ne\nsecond\n');
    c.write(`${'x'.repeat(100_000)}\nthird\n`);
    await waitFor(() => got.length === 3);
    expect(got).toEqual(['first line', 'second', 'third']);
    expect(oversize).toBe(1);
    c.destroy();
    const err = await listenTcp({ port: l.port, host: '127.0.0.1', logger, onMessage: () => {} }).catch(
      (e) => e,
    );
    expect(err.banner).toBe(`Address already in use: TCP port ${l.port} is taken`);
  });

  it('a handler that throws does not take the listener down', async () => {
    let calls = 0;
    const l = await listenUdp({
      port: 0,
      host: '127.0.0.1',
      logger,
      onMessage: () => {
        calls++;
        throw new Error('boom');
      },
    });
    cleanups.push(() => l.close());
    await sendUdp(l.port, 'a');
    await sendUdp(l.port, 'b');
    await waitFor(() => calls === 2);
  });
});

describe('LineSplitter', () => {
  it('splits on LF and keeps a CR for the parser to trim', () => {
    const lines: string[] = [];
    const s = new LineSplitter(
      10,
      (l) => lines.push(l),
      () => lines.push('<oversize>'),
    );
    s.push(Buffer.from('ab\r\ncd'));
    s.push(Buffer.from('\n0123456789X'));
    s.push(Buffer.from('YZ\nok\n'));
    expect(lines).toEqual(['ab\r', 'cd', '<oversize>', 'ok']);
  });
});
