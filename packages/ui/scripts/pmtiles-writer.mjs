// A small PMTiles v3 writer (the archive format is public: header, root directory, JSON metadata,
// leaf directories, tile data). Enough for the basemap build: one pass over tiles held in memory,
// identical tile contents stored once, runs of one content as one directory entry, directories gzipped.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const HEADER_BYTES = 127;
/** The header and the root directory must fit in the first 16 KiB, so a reader gets both in one request. */
const ROOT_LIMIT = 16_384;
const GZIP = 2;

/** Position of (x, y) along the Hilbert curve of a 2^z grid. */
function hilbert(z, x, y) {
  const n = 2 ** z;
  let d = 0;
  for (let s = n / 2; s >= 1; s /= 2) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    // Rotate the quadrant so the curve's next level continues where this one ends.
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - (x & (s - 1));
        y = s - 1 - (y & (s - 1));
      }
      [x, y] = [y, x];
    }
  }
  return d;
}

/** The tile id: every tile of the lower zooms comes first, then this zoom's tiles along its Hilbert curve. */
export function tileId(z, x, y) {
  if (z > 26) throw new Error(`zoom ${z} is beyond what a tile id can hold here`);
  const n = 2 ** z;
  if (x < 0 || y < 0 || x >= n || y >= n) throw new Error(`tile ${z}/${x}/${y} is outside its zoom`);
  return (4 ** z - 1) / 3 + hilbert(z, x, y);
}

function varint(out, value) {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** A directory: entry count, then column by column (ids as deltas, run lengths, lengths, offsets). */
function serializeDirectory(entries) {
  const out = [];
  varint(out, entries.length);
  let last = 0;
  for (const e of entries) {
    varint(out, e.id - last);
    last = e.id;
  }
  for (const e of entries) varint(out, e.run);
  for (const e of entries) varint(out, e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    // 0 means "right after the previous entry": contiguous data costs one byte per entry.
    varint(out, i > 0 && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return gzipSync(Buffer.from(out), { level: 9 });
}

/** The root directory alone if it fits, else a root of leaf pointers with leaves of `size` entries. */
function buildDirectories(entries) {
  const root = serializeDirectory(entries);
  if (HEADER_BYTES + root.length <= ROOT_LIMIT) return { root, leaves: Buffer.alloc(0) };
  for (let size = 4096; ; size *= 2) {
    const leafParts = [];
    const rootEntries = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += size) {
      const leaf = serializeDirectory(entries.slice(i, i + size));
      rootEntries.push({ id: entries[i].id, run: 0, length: leaf.length, offset });
      leafParts.push(leaf);
      offset += leaf.length;
    }
    const rootDir = serializeDirectory(rootEntries);
    if (HEADER_BYTES + rootDir.length <= ROOT_LIMIT)
      return { root: rootDir, leaves: Buffer.concat(leafParts) };
  }
}

function u64(buf, at, value) {
  buf.writeBigUInt64LE(BigInt(value), at);
}

const e7 = (deg) => Math.round(deg * 1e7);

/**
 * The archive as one buffer.
 * @param {object} o
 * @param {Array<{ z: number, x: number, y: number, data: Buffer }>} o.tiles gzipped MVT tiles
 * @param {object} o.metadata the JSON metadata (name, attribution, vector_layers…)
 * @param {[number, number, number, number]} o.bounds west, south, east, north in degrees
 * @param {[number, number, number]} o.center lon, lat, zoom
 */
export function writeArchive({ tiles, metadata, bounds, center }) {
  if (tiles.length === 0) throw new Error('an archive needs at least one tile');
  const sorted = tiles.map((t) => ({ ...t, id: tileId(t.z, t.x, t.y) })).sort((a, b) => a.id - b.id);
  const blobs = [];
  const byHash = new Map();
  const entries = [];
  let dataLength = 0;
  for (const t of sorted) {
    const hash = createHash('sha256').update(t.data).digest('hex');
    let blob = byHash.get(hash);
    if (!blob) {
      blob = { offset: dataLength, length: t.data.length };
      byHash.set(hash, blob);
      blobs.push(t.data);
      dataLength += t.data.length;
    }
    const last = entries[entries.length - 1];
    // The next tile along the curve with the same content extends the run (the open sea, mostly).
    if (last && last.offset === blob.offset && last.id + last.run === t.id) last.run += 1;
    else entries.push({ id: t.id, run: 1, length: blob.length, offset: blob.offset });
  }
  const { root, leaves } = buildDirectories(entries);
  const meta = gzipSync(Buffer.from(JSON.stringify(metadata)), { level: 9 });
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('PMTiles', 0, 'latin1');
  header.writeUInt8(3, 7);
  const rootAt = HEADER_BYTES;
  const metaAt = rootAt + root.length;
  const leavesAt = metaAt + meta.length;
  const dataAt = leavesAt + leaves.length;
  u64(header, 8, rootAt);
  u64(header, 16, root.length);
  u64(header, 24, metaAt);
  u64(header, 32, meta.length);
  u64(header, 40, leavesAt);
  u64(header, 48, leaves.length);
  u64(header, 56, dataAt);
  u64(header, 64, dataLength);
  u64(header, 72, sorted.length);
  u64(header, 80, entries.length);
  u64(header, 88, blobs.length);
  header.writeUInt8(1, 96); // clustered: blobs in tile-id order of first use, repeats point back
  header.writeUInt8(GZIP, 97);
  header.writeUInt8(GZIP, 98);
  header.writeUInt8(1, 99); // MVT
  header.writeUInt8(Math.min(...sorted.map((t) => t.z)), 100);
  header.writeUInt8(Math.max(...sorted.map((t) => t.z)), 101);
  header.writeInt32LE(e7(bounds[0]), 102);
  header.writeInt32LE(e7(bounds[1]), 106);
  header.writeInt32LE(e7(bounds[2]), 110);
  header.writeInt32LE(e7(bounds[3]), 114);
  header.writeUInt8(center[2], 118);
  header.writeInt32LE(e7(center[0]), 119);
  header.writeInt32LE(e7(center[1]), 123);
  return Buffer.concat([header, root, meta, leaves, ...blobs]);
}
