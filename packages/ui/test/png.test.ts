import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng, recompressPng } from '../testing/png.js';

// A PNG written the way an encoder other than ours might: RGBA, each row with its own filter.
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function encodeRgba(width: number, rows: Buffer[], filters: number[]): Buffer {
  const bpp = 4;
  const parts: Buffer[] = [];
  let prev: Buffer = Buffer.alloc(width * bpp);
  rows.forEach((row, y) => {
    const f = filters[y % filters.length] as number;
    const line = Buffer.alloc(row.length);
    for (let x = 0; x < row.length; x++) {
      const a = x >= bpp ? (row[x - bpp] as number) : 0;
      const b = prev[x] as number;
      const c = x >= bpp ? (prev[x - bpp] as number) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][f] as number;
      line[x] = ((row[x] as number) - pred) & 255;
    }
    parts.push(Buffer.from([f]), line);
    prev = row;
  });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(rows.length, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(parts), { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('recompressPng', () => {
  it('keeps every pixel of an opaque picture, smaller, whatever filters the input used', () => {
    const width = 64;
    // A console-like picture: flat panels, a gradient, some noise-like text pixels.
    const rows = Array.from({ length: 48 }, (_, y) => {
      const r = Buffer.alloc(width * 4);
      for (let x = 0; x < width; x++) {
        const text = (x * 7 + y * 13) % 11 === 0;
        r.set([text ? 20 : 244, text ? 30 : 245 - y, text ? 40 : 247, 255], x * 4);
      }
      return r;
    });
    const input = encodeRgba(width, rows, [0, 1, 2, 3, 4]);
    const out = recompressPng(input);
    expect(out.length).toBeLessThan(input.length);
    const back = decodePng(out)!;
    expect(back.bpp).toBe(3);
    const rgb = rows.map((r) => Buffer.from(r.filter((_, i) => i % 4 !== 3)));
    expect(back.rows).toEqual(rgb);
    expect(decodePng(input)!.rows).toEqual(rows);
  });

  it('keeps the alpha channel of a picture that is not opaque', () => {
    const rows = [Buffer.from([1, 2, 3, 128, 4, 5, 6, 255]), Buffer.from([7, 8, 9, 0, 10, 11, 12, 255])];
    const back = decodePng(recompressPng(encodeRgba(2, rows, [4])))!;
    expect(back.bpp).toBe(4);
    expect(back.rows).toEqual(rows);
  });
});
