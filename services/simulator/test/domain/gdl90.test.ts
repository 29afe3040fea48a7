import { describe, expect, it } from 'vitest';
import {
  addressFromName,
  callSign,
  encodeLatLon,
  foreFlightId,
  frameGdl90,
  gdl90Crc,
  gdl90Epoch,
  heartbeat,
  ownshipReport,
} from '../../src/domain/gdl90/index.js';
import { crcBitwise, decodeDatagram, decodeOwnship } from '../helpers/gdl90-decode.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('GDL 90 encoder', () => {
  it("frames the spec's heartbeat example byte for byte", () => {
    // 560-1058-00 Rev A, the framing example: 7E 00 81 41 DB D0 08 02 B3 8B 7E.
    const message = Uint8Array.from([0x00, 0x81, 0x41, 0xdb, 0xd0, 0x08, 0x02]);
    expect(gdl90Crc(message)).toBe(0x8bb3);
    expect(hex(frameGdl90(message))).toBe('7e008141dbd00802b38b7e');
  });

  it('the table-driven CRC equals the bitwise one on arbitrary bytes', () => {
    for (let n = 0; n < 200; n++) {
      const bytes = Uint8Array.from({ length: (n % 40) + 1 }, (_, i) => (n * 31 + i * 17) & 0xff);
      expect(gdl90Crc(bytes)).toBe(crcBitwise(bytes));
    }
  });

  it('escapes flag and escape bytes in the message and in the FCS', () => {
    const framed = frameGdl90(Uint8Array.from([0x0a, 0x7e, 0x7d, 0x01]));
    expect(hex(framed.subarray(0, 6))).toBe('7e0a7d5e7d5d');
    expect(framed.subarray(1, -1).includes(0x7e)).toBe(false);
    expect(decodeDatagram(Buffer.from(framed))[0]!.message).toEqual(Buffer.from([0x0a, 0x7e, 0x7d, 0x01]));
  });

  it('heartbeat carries time of day with its 17th bit in status byte 2', () => {
    const late = Date.UTC(2026, 0, 1, 23, 59, 59);
    const b = heartbeat(true, late);
    const ts = 86_399;
    expect([...b]).toEqual([0, 0x81, 0x81, ts & 0xff, (ts >> 8) & 0xff, 0, 0]);
    expect([...heartbeat(false, Date.UTC(2026, 0, 1, 0, 0, 1))]).toEqual([0, 0x01, 0x00, 1, 0, 0, 0]);
  });

  it('ownship fields round-trip through the spec decoder, south and west included', () => {
    const m = ownshipReport(
      { lat: -33.9461, lon: -151.1772, altitude_ft: 21, speed_kts: 250.4, track: 359.9, vertical_fpm: -700 },
      { address: 0xabcdef, callSign: callSign('vh-abc'), emitterCategory: 1 },
    );
    const o = decodeOwnship(Buffer.from(m));
    expect(o.address).toBe(0xabcdef);
    expect(o.lat).toBeCloseTo(-33.9461, 4);
    expect(o.lon).toBeCloseTo(-151.1772, 4);
    expect(o.pressureAltitudeFt).toBe(25);
    expect(o.speedKts).toBe(250);
    expect(o.verticalFpm).toBe(-704);
    expect(o.trackDeg).toBe(0);
    expect(o.callSign).toBe('VHABC   ');
    expect(o.airborne).toBe(true);
  });

  it('clamps the ends of each field and encodes 180° east as 180° west', () => {
    expect(encodeLatLon(180)).toBe(encodeLatLon(-180));
    const o = decodeOwnship(
      Buffer.from(
        ownshipReport(
          { lat: 90, lon: 179.99999, altitude_ft: 200_000, speed_kts: 9999, track: 0, vertical_fpm: 1e6 },
          { address: 1, callSign: callSign(''), emitterCategory: 1 },
        ),
      ),
    );
    expect(o.pressureAltitudeFt).toBe(0xffe * 25 - 1000);
    expect(o.speedKts).toBe(0xffe);
    expect(o.verticalFpm).toBe(510 * 64);
    expect(o.lat).toBeCloseTo(90, 4);
    expect(o.callSign).toBe('OUTPOST ');
  });

  it('ForeFlight ID is 39 bytes, names padded with NUL and cut at their length', () => {
    const m = foreFlightId('A very long name', 'Ü-ok control\u0001chars');
    expect(m.length).toBe(39);
    expect(Buffer.from(m.subarray(11, 19)).toString('ascii')).toBe('A very l');
    expect(Buffer.from(m.subarray(19, 35)).toString('ascii').replace(/\0+$/, '')).toBe('-ok controlchars');
  });

  it('an epoch without a fix is one heartbeat; the address follows the name', () => {
    expect(gdl90Epoch('x', null, 0).length).toBe(1);
    expect(addressFromName('Sim1')).toBe(addressFromName('Sim1'));
    expect(addressFromName('Sim1')).not.toBe(addressFromName('Sim2'));
    expect(addressFromName('Sim1')).toBeLessThanOrEqual(0xffffff);
  });
});
