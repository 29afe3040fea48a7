import type { Logger } from '@outpost/runtime';
import type { Engine } from '../domain/engine.js';
import { parseReceiverLine, splitDatagram } from '../domain/receiver-parse.js';
import { ReceiverStats } from './receiver-stats.js';
import type { RunOutputs } from './run-outputs.js';

/** A receiver feed older than this no longer drives the outputs (a stale fix is worse than none). */
export const RECEIVER_STALE_MS = 5000;

/**
 * What arrives on the receiver listener: each accepted fix moves the engine there, bad lines are
 * counted, and a rebroadcaster passes every good line on to its retransmit target.
 */
export class ReceiverFeed {
  stats = new ReceiverStats();
  private badLogAt = 0;

  constructor(
    private readonly engine: Engine,
    private readonly log: Logger,
  ) {}

  /** A new run counts from zero. */
  reset(): void {
    this.stats = new ReceiverStats();
  }

  /** Whether the last accepted fix is fresh enough to drive the outputs at `now`. */
  receivingAt(now: number): boolean {
    const last = this.stats.lastInputMs;
    return last !== null && now - last <= RECEIVER_STALE_MS;
  }

  /** A UDP datagram may carry several lines; a TCP message is one. */
  receive(text: string, from: string, now: number, run: RunOutputs | null): void {
    if (run?.listener?.protocol === 'udp') {
      this.stats.lastUdpMs = now;
      for (const line of splitDatagram(text)) this.ingest(line, from, now, run);
    } else {
      this.ingest(text, from, now, run);
    }
  }

  /** One message: JSON, CYGNUS or an NMEA sentence. */
  private ingest(text: string, from: string, now: number, run: RunOutputs | null): void {
    const result = parseReceiverLine(text);
    if (!result.ok) {
      this.stats.rejected(result.reason, result.checksum === true);
      // A flood of garbage must not become a flood of log lines.
      if (now - this.badLogAt > 60_000) {
        this.badLogAt = now;
        this.log.warn(
          { from, reason: result.reason, bad_lines: this.stats.badLines },
          'receiver dropped a bad line',
        );
      }
      return;
    }
    if (result.format === 'nmea') {
      if (result.fields === null) this.stats.withoutFix();
      else {
        this.stats.accepted('nmea', from, now);
        this.engine.jumpTo(result.fields);
        this.engine.resetTime(now);
      }
    } else {
      this.stats.accepted(result.format, from, now);
      const p = result.position;
      this.engine.jumpTo({
        lat: p.lat,
        lon: p.lon,
        altitude_ft: p.altitude_ft,
        speed_kts: p.speed_kts,
        heading: p.heading,
      });
      this.engine.resetTime(now);
    }
    if (run?.retransmit && run.retransmitTarget) {
      // NMEA keeps its CR LF line end, so a consumer behind the retransmit sees standard sentences.
      const line = result.format === 'nmea' ? `${text.trim()}\r\n` : `${text.trimEnd()}\n`;
      run.retransmit.send(line, [run.retransmitTarget]);
    }
  }
}
