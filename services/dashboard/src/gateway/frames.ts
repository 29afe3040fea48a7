import { constants, deflateRawSync } from 'node:zlib';

/** Server-to-client WebSocket text frame header (RFC 6455 §5.2: FIN, no mask), RSV1 set when compressed. */
export function textFrameHeader(payloadLength: number, compressed: boolean): Buffer {
  const first = 0x80 | (compressed ? 0x40 : 0) | 0x01;
  if (payloadLength < 126) return Buffer.from([first, payloadLength]);
  if (payloadLength < 0x10000) {
    const h = Buffer.alloc(4);
    h[0] = first;
    h[1] = 126;
    h.writeUInt16BE(payloadLength, 2);
    return h;
  }
  const h = Buffer.alloc(10);
  h[0] = first;
  h[1] = 127;
  h.writeBigUInt64BE(BigInt(payloadLength), 2);
  return h;
}

/**
 * A whole message compressed as permessage-deflate wants it (RFC 7692 §7.2.1): raw DEFLATE flushed with
 * Z_SYNC_FLUSH, minus the trailing 00 00 ff ff. A fresh compressor per message, so the same bytes are
 * valid for every client that agreed to server_no_context_takeover.
 */
export function deflateMessage(data: Buffer): Buffer {
  const out = deflateRawSync(data, { level: 1, finishFlush: constants.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

/** One message framed once, for as many sockets as need it. */
export class SharedFrames {
  private plain: Buffer | null = null;
  private deflated: Buffer | null = null;

  constructor(private readonly message: Buffer) {}

  get length(): number {
    return this.message.length;
  }

  frame(compressed: boolean): Buffer {
    if (compressed) {
      if (!this.deflated) {
        const body = deflateMessage(this.message);
        this.deflated = Buffer.concat([textFrameHeader(body.length, true), body]);
      }
      return this.deflated;
    }
    this.plain ??= Buffer.concat([textFrameHeader(this.message.length, false), this.message]);
    return this.plain;
  }
}
