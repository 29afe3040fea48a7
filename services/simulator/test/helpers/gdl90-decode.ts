/**
 * A GDL 90 decoder written for the tests from the spec (560-1058-00 Rev A) and ForeFlight's
 * extension, independent of the simulator's encoder: a bit-by-bit CRC rather than the table, and
 * field extraction straight from the spec's byte layouts.
 */

export interface Frame {
  id: number;
  /** The message: ID byte and data, without FCS. */
  message: Buffer;
}

/**
 * The spec's table-driven CRC (`crc = table[crc >> 8] ^ (crc << 8) ^ byte`, polynomial 0x1021,
 * initial 0) is the shift register that takes each message bit, MSB first, in at its low end and
 * feeds the polynomial back when a 1 leaves the top. Computed here bit by bit.
 */
export function crcBitwise(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    for (let i = 7; i >= 0; i--) {
      const top = crc & 0x8000;
      crc = ((crc << 1) | ((b >> i) & 1)) & 0xffff;
      if (top) crc ^= 0x1021;
    }
  }
  return crc;
}

/** Checks flags, stuffing and FCS of one datagram holding one or more frames; throws on any fault. */
export function decodeDatagram(d: Buffer): Frame[] {
  const frames: Frame[] = [];
  let i = 0;
  while (i < d.length) {
    if (d[i] !== 0x7e) throw new Error(`expected a flag at ${i}, got ${d[i]}`);
    const end = d.indexOf(0x7e, i + 1);
    if (end < 0) throw new Error('frame without closing flag');
    const body: number[] = [];
    for (let k = i + 1; k < end; k++) {
      if (d[k] === 0x7d) {
        const next = d[++k];
        if (next === undefined || k >= end) throw new Error('escape at end of frame');
        const v = next ^ 0x20;
        if (v !== 0x7e && v !== 0x7d) throw new Error(`needless escape of ${v}`);
        body.push(v);
      } else {
        body.push(d[k]!);
      }
    }
    if (body.length < 3) throw new Error('frame too short');
    const message = Buffer.from(body.slice(0, -2));
    const fcs = body[body.length - 2]! | (body[body.length - 1]! << 8);
    const crc = crcBitwise(message);
    if (crc !== fcs) throw new Error(`FCS ${fcs.toString(16)} != CRC ${crc.toString(16)}`);
    frames.push({ id: message[0]!, message });
    i = end + 1;
  }
  return frames;
}

const s24 = (b: Buffer, o: number): number => {
  const v = (b[o]! << 16) | (b[o + 1]! << 8) | b[o + 2]!;
  return v & 0x800000 ? v - 0x1000000 : v;
};

export interface Heartbeat {
  gpsValid: boolean;
  utcOk: boolean;
  secondsOfDay: number;
}

export function decodeHeartbeat(m: Buffer): Heartbeat {
  if (m.length !== 7) throw new Error(`heartbeat length ${m.length}`);
  return {
    gpsValid: (m[1]! & 0x80) !== 0,
    utcOk: (m[2]! & 0x01) !== 0,
    secondsOfDay: ((m[2]! & 0x80) << 9) | (m[4]! << 8) | m[3]!,
  };
}

export interface Ownship {
  address: number;
  lat: number;
  lon: number;
  pressureAltitudeFt: number | null;
  airborne: boolean;
  trackType: number;
  nic: number;
  nacp: number;
  speedKts: number | null;
  verticalFpm: number | null;
  trackDeg: number;
  emitter: number;
  callSign: string;
}

export function decodeOwnship(m: Buffer): Ownship {
  if (m.length !== 28) throw new Error(`ownship length ${m.length}`);
  const alt = (m[11]! << 4) | (m[12]! >> 4);
  const hv = (m[14]! << 4) | (m[15]! >> 4);
  const vvRaw = ((m[15]! & 0x0f) << 8) | m[16]!;
  const vv = vvRaw & 0x800 ? vvRaw - 0x1000 : vvRaw;
  return {
    address: (m[2]! << 16) | (m[3]! << 8) | m[4]!,
    lat: (s24(m, 5) * 180) / 2 ** 23,
    lon: (s24(m, 8) * 180) / 2 ** 23,
    pressureAltitudeFt: alt === 0xfff ? null : alt * 25 - 1000,
    airborne: (m[12]! & 0x08) !== 0,
    trackType: m[12]! & 0x03,
    nic: m[13]! >> 4,
    nacp: m[13]! & 0x0f,
    speedKts: hv === 0xfff ? null : hv,
    verticalFpm: vvRaw === 0x800 ? null : vv * 64,
    trackDeg: (m[17]! * 360) / 256,
    emitter: m[18]!,
    callSign: m.subarray(19, 27).toString('ascii'),
  };
}

export function decodeGeoAltitude(m: Buffer): { altitudeFt: number; vfomM: number } {
  if (m.length !== 5) throw new Error(`geometric altitude length ${m.length}`);
  return { altitudeFt: m.readInt16BE(1) * 5, vfomM: m.readUInt16BE(3) & 0x7fff };
}

export function decodeForeFlightId(m: Buffer): {
  subId: number;
  version: number;
  name: string;
  longName: string;
  capabilities: number;
} {
  if (m.length !== 39) throw new Error(`ForeFlight ID length ${m.length}`);
  const text = (b: Buffer) => b.toString('utf8').replace(/\0+$/, '');
  return {
    subId: m[1]!,
    version: m[2]!,
    name: text(m.subarray(11, 19)),
    longName: text(m.subarray(19, 35)),
    capabilities: m.readUInt32BE(35),
  };
}
