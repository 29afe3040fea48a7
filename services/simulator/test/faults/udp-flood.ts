import { Worker } from 'node:worker_threads';

export type PayloadKind = 'valid' | 'garbage' | 'oversize';

export interface Payload {
  kind: PayloadKind;
  data: Buffer;
}

export interface FloodResult {
  /** Datagrams handed to the socket. */
  issued: number;
  /** Datagrams the kernel took (send callback without error), by kind. */
  sent: Record<PayloadKind, number>;
  /** Sends that failed in this process (ENOBUFS and the like), by kind. */
  errors: Record<PayloadKind, number>;
  errorCodes: string[];
  elapsedMs: number;
  totalSent: number;
  /** Datagrams per second actually sent. */
  rate: number;
}

/**
 * One cycle of the flood's payloads: a quarter valid positions (JSON and CYGNUS), one in twenty over
 * the receiver's datagram limit, the rest garbage a real network could carry (wrong formats, broken
 * JSON, binary, out-of-range values, lines just under the datagram limit but over the line limit).
 */
export function floodPayloads(): Payload[] {
  const valid = (i: number): Buffer =>
    Buffer.from(
      i % 2 === 0
        ? JSON.stringify({
            lat: 10 + i / 100,
            lon: 20 + i / 100,
            alt_ft: 1000 + i,
            speed_kts: 100 + i,
            heading: 10 * i,
          })
        : `$CYGNUS:lat=${-10 - i / 100}&lon=${-20 - i / 100}&heading=${5 * i}&magvar=3&alt=${2000 + i}&airspeed=${90 + i}`,
    );
  const garbage: Buffer[] = [
    Buffer.from('hello'),
    Buffer.alloc(0),
    Buffer.from('{"lat": 10, "lon": '),
    Buffer.from('{"lat": 91, "lon": 0, "alt_ft": 0, "speed_kts": 0, "heading": 0}'),
    Buffer.from('{"lat": "x", "lon": 0, "alt_ft": 0, "speed_kts": 0, "heading": 0}'),
    Buffer.from('{"__proto__": {"polluted": true}, "lat": 1}'),
    Buffer.from('$CYGNUS:lat=abc&lon=1&heading=1&alt=1&airspeed=1'),
    Buffer.from('$CYGNUS:lat=1&lon=1&heading=1&alt=1&airspeed=99999'),
    // An NMEA sentence whose checksum does not match (the correct one is 47).
    Buffer.from('$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48'),
    Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0x80, 0x00]),
    Buffer.from(`${'['.repeat(1000)}${']'.repeat(1000)}`),
    Buffer.from('null'),
    Buffer.from('{}'),
    Buffer.from(`{"lat": 1, "pad": "${'x'.repeat(2100)}"}`),
    // Exactly the datagram limit: passes the listener, refused by the line-length check.
    Buffer.alloc(4096, 0x7a),
    Buffer.from('\u0000\u0000\u0000'),
    Buffer.from('$CYGNUS:'),
    Buffer.from('{"lat": 1e999, "lon": 0, "alt_ft": 0, "speed_kts": 0, "heading": 0}'),
    Buffer.from('lat=1&lon=2'),
    Buffer.from('\r\n\r\n'),
  ];
  const oversize: Buffer[] = [Buffer.alloc(4097, 0x41), Buffer.alloc(9000, 0x7b), Buffer.alloc(60_000, 0x20)];

  // 80 payloads per cycle: 20 valid, 4 oversize, 56 garbage, interleaved.
  const cycle: Payload[] = [];
  let v = 0;
  let g = 0;
  let o = 0;
  for (let i = 0; i < 80; i++) {
    if (i % 4 === 0) cycle.push({ kind: 'valid', data: valid(v++) });
    else if (i % 20 === 1) cycle.push({ kind: 'oversize', data: oversize[o++ % oversize.length]! });
    else cycle.push({ kind: 'garbage', data: garbage[g++ % garbage.length]! });
  }
  return cycle;
}

/** Floods 127.0.0.1:port from a worker thread at `rate` datagrams per second for `seconds`. */
export function floodUdp(opts: {
  port: number;
  rate: number;
  seconds: number;
  payloads: Payload[];
}): Promise<FloodResult> {
  const worker = new Worker(new URL('./udp-flood-worker.mjs', import.meta.url), {
    workerData: {
      host: '127.0.0.1',
      port: opts.port,
      rate: opts.rate,
      seconds: opts.seconds,
      payloads: opts.payloads.map((p) => p.data),
      kinds: opts.payloads.map((p) => p.kind),
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m: Omit<FloodResult, 'totalSent' | 'rate'>) => {
      const totalSent = m.sent.valid + m.sent.garbage + m.sent.oversize;
      resolve({ ...m, totalSent, rate: totalSent / (m.elapsedMs / 1000) });
      void worker.terminate();
    });
  });
}
