import { openSync, closeSync, readSync } from 'node:fs';
import { ManualClock } from '@outpost/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SerialOutput } from '../../src/io/serial-output.js';
import { StartError } from '../../src/io/start-error.js';
import { silentLogger } from '../helpers/log.js';
import { ptyPair, type PtyPair, skipWithout, tempDir, waitFor } from '../helpers/peers.js';

const skip = skipWithout('socat');

describe.skipIf(skip)('serial output over a pseudo-terminal pair', () => {
  const dir = tempDir();
  let pty: PtyPair;
  beforeAll(async () => {
    pty = await ptyPair(dir.path);
  });
  afterAll(async () => {
    await pty?.close();
    dir.remove();
  });

  it('writes NMEA bytes that come out unchanged on the other end', async () => {
    const out = await SerialOutput.open({
      device: pty.input,
      baudRate: 115200,
      clock: new ManualClock(),
      logger: silentLogger,
    });
    const fd = openSync(pty.output, 'r');
    try {
      const sentence = '$GPGLL,4916.45,N,12311.12,W,225444,A,*1D\r\n';
      expect(out.write(sentence)).toBe(true);
      const buf = Buffer.alloc(256);
      let got = '';
      await waitFor(() => {
        try {
          const n = readSync(fd, buf, 0, buf.length, null);
          got += buf.subarray(0, n).toString('ascii');
        } catch {
          // EAGAIN while nothing has arrived yet
        }
        return got.includes('\r\n');
      });
      expect(got).toBe(sentence);
      expect(out.bytesWritten).toBe(sentence.length);
    } finally {
      closeSync(fd);
      await out.close();
    }
  });
});

describe('serial output start errors', () => {
  it('a missing device is refused with a banner naming it', async () => {
    const err = await SerialOutput.open({
      device: '/dev/ttyUSB-does-not-exist',
      baudRate: 115200,
      clock: new ManualClock(),
      logger: silentLogger,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartError);
    expect((err as StartError).banner).toBe(
      'Serial port /dev/ttyUSB-does-not-exist cannot be opened: device not found',
    );
  });
});
