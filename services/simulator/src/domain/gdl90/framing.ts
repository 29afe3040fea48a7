/**
 * GDL 90 framing (560-1058-00 Rev A, section 2.2): a message (ID byte and data) gets its frame check
 * sequence appended least significant byte first, every 0x7E or 0x7D in message and FCS is escaped
 * as 0x7D followed by the byte XOR 0x20, and the result sits between two 0x7E flag bytes.
 */

export const FLAG = 0x7e;
export const ESCAPE = 0x7d;

const CRC_TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = ((crc << 1) ^ (crc & 0x8000 ? 0x1021 : 0)) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** CRC-16-CCITT, polynomial 0x1021, initial value 0, processed in the spec's table-driven form. */
export function gdl90Crc(message: Uint8Array): number {
  let crc = 0;
  for (const b of message) crc = (CRC_TABLE[crc >>> 8]! ^ ((crc << 8) & 0xffff) ^ b) & 0xffff;
  return crc;
}

/** One complete frame, ready to be sent as a UDP datagram. */
export function frameGdl90(message: Uint8Array): Uint8Array {
  const crc = gdl90Crc(message);
  const out: number[] = [FLAG];
  const put = (b: number): void => {
    if (b === FLAG || b === ESCAPE) out.push(ESCAPE, b ^ 0x20);
    else out.push(b);
  };
  for (const b of message) put(b);
  put(crc & 0xff);
  put(crc >>> 8);
  out.push(FLAG);
  return Uint8Array.from(out);
}
