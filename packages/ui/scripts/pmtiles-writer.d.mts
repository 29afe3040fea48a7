/** Types of pmtiles-writer.mjs (a build script, plain JavaScript). */
export function tileId(z: number, x: number, y: number): number;
export function writeArchive(o: {
  tiles: Array<{ z: number; x: number; y: number; data: Buffer }>;
  metadata: object;
  bounds: [number, number, number, number];
  center: [number, number, number];
}): Buffer;
