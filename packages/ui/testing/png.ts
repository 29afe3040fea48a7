// Lossless re-encoding of Chromium's screenshots for the pictures kept in the repository. Chromium
// writes quickly rather than small; a console's flat colours compress about a quarter better with
// unfiltered rows (or the per-row filter that suits them) at zlib's highest level, pixel for pixel
// the same picture.
import { deflateSync, inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes per pixel of the 8-bit, non-interlaced colour types Chromium writes: RGB and RGBA. */
const BPP: Record<number, number> = { 2: 3, 6: 4 };

export interface Decoded {
  width: number;
  height: number;
  bpp: number;
  rows: Buffer[];
}

function chunks(png: Buffer): { type: string; data: Buffer }[] {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  const out: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    out.push({ type: png.toString('latin1', at + 4, at + 8), data: png.subarray(at + 8, at + 8 + len) });
    at += 12 + len;
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The pixel rows of an 8-bit, non-interlaced RGB(A) PNG (null for any other kind). */
export function decodePng(png: Buffer): Decoded | null {
  const all = chunks(png);
  const ihdr = all.find((c) => c.type === 'IHDR')?.data;
  if (!ihdr) throw new Error('PNG without IHDR');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bpp = BPP[ihdr[9] ?? -1];
  // Anything but 8-bit, non-interlaced RGB(A) is left as it is.
  if (ihdr[8] !== 8 || !bpp || ihdr[12] !== 0) return null;
  const raw = inflateSync(Buffer.concat(all.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * bpp;
  const rows: Buffer[] = [];
  let prev: Buffer = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1);
    const filter = raw[start];
    const line = Buffer.from(raw.subarray(start + 1, start + 1 + stride));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? (line[x - bpp] as number) : 0;
      const b = prev[x] as number;
      const c = x >= bpp ? (prev[x - bpp] as number) : 0;
      const v = line[x] as number;
      if (filter === 1) line[x] = (v + a) & 255;
      else if (filter === 2) line[x] = (v + b) & 255;
      else if (filter === 3) line[x] = (v + ((a + b) >> 1)) & 255;
      else if (filter === 4) line[x] = (v + paeth(a, b, c)) & 255;
    }
    rows.push(line);
    prev = line;
  }
  return { width, height, bpp, rows };
}

/** Drops an alpha channel that is opaque everywhere (a screenshot's always is). */
function opaqueToRgb(d: Decoded): Decoded {
  if (d.bpp !== 4 || !d.rows.every((r) => r.every((v, i) => i % 4 !== 3 || v === 255))) return d;
  const rows = d.rows.map((r) => {
    const out = Buffer.alloc(d.width * 3);
    for (let x = 0; x < d.width; x++) r.copy(out, x * 3, x * 4, x * 4 + 3);
    return out;
  });
  return { ...d, bpp: 3, rows };
}

/** Each row with filter 0 (none), or each row with the filter whose output sums smallest. */
function filtered(d: Decoded, adaptive: boolean): Buffer {
  const stride = d.width * d.bpp;
  const out = Buffer.alloc(d.height * (stride + 1));
  let prev: Buffer = Buffer.alloc(stride);
  d.rows.forEach((row, y) => {
    const at = y * (stride + 1);
    let best = 0;
    let bestLine = row;
    if (adaptive) {
      let bestSum = Number.POSITIVE_INFINITY;
      for (let f = 0; f <= 4; f++) {
        const line = Buffer.alloc(stride);
        let sum = 0;
        for (let x = 0; x < stride; x++) {
          const a = x >= d.bpp ? (row[x - d.bpp] as number) : 0;
          const b = prev[x] as number;
          const c = x >= d.bpp ? (prev[x - d.bpp] as number) : 0;
          const pred = f === 0 ? 0 : f === 1 ? a : f === 2 ? b : f === 3 ? (a + b) >> 1 : paeth(a, b, c);
          const v = ((row[x] as number) - pred) & 255;
          line[x] = v;
          sum += v < 128 ? v : 256 - v;
        }
        if (sum < bestSum) [best, bestSum, bestLine] = [f, sum, line];
      }
    }
    out[at] = best;
    bestLine.copy(out, at + 1);
    prev = row;
  });
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

let table: Uint32Array | null = null;
function crc32(buf: Buffer): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const byte of buf) c = (table[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The same picture, smaller when it can be (otherwise the input unchanged). */
export function recompressPng(png: Buffer): Buffer {
  const decoded = decodePng(png);
  if (!decoded) return png;
  const d = opaqueToRgb(decoded);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(d.width, 0);
  ihdr.writeUInt32BE(d.height, 4);
  ihdr[8] = 8;
  ihdr[9] = d.bpp === 3 ? 2 : 6;
  let best = png;
  for (const adaptive of [false, true]) {
    const idat = deflateSync(filtered(d, adaptive), { level: 9, memLevel: 9 });
    const out = Buffer.concat([
      SIGNATURE,
      chunk('IHDR', ihdr),
      chunk('IDAT', idat),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    if (out.length < best.length) best = out;
  }
  return best;
}
