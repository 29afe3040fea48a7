/** What the receiver has seen in this run; shown in the status so a user can tell a bad feed from none. */
export class ReceiverStats {
  messagesReceived = 0;
  messagesAccepted = 0;
  json = 0;
  cygnus = 0;
  nmea = 0;
  /** Well-formed NMEA sentences that carry no position (GSV, ZDA, a void RMC): neither good nor bad. */
  nmeaWithoutFix = 0;
  /** NMEA sentences refused because their checksum does not match (also counted in badLines). */
  checksumErrors = 0;
  badLines = 0;
  oversize = 0;
  lastError: string | null = null;
  lastInputMs: number | null = null;
  lastSource: string | null = null;
  /** Any UDP datagram on the listen port, good or bad: the heartbeat's receiving_udp. */
  lastUdpMs: number | null = null;

  accepted(format: 'json' | 'cygnus' | 'nmea', from: string, nowMs: number): void {
    this.messagesReceived++;
    this.messagesAccepted++;
    if (format === 'json') this.json++;
    else if (format === 'cygnus') this.cygnus++;
    else this.nmea++;
    this.lastInputMs = nowMs;
    this.lastSource = from;
  }

  withoutFix(): void {
    this.messagesReceived++;
    this.nmeaWithoutFix++;
  }

  rejected(reason: string, checksum = false): void {
    this.messagesReceived++;
    this.badLines++;
    if (checksum) this.checksumErrors++;
    this.lastError = reason;
  }

  tooLong(): void {
    this.messagesReceived++;
    this.badLines++;
    this.oversize++;
    this.lastError = 'message longer than the receiver accepts';
  }

  ageSeconds(nowMs: number): number | null {
    return this.lastInputMs === null ? null : Math.max(0, (nowMs - this.lastInputMs) / 1000);
  }

  snapshot(nowMs: number, staleMs: number) {
    const age = this.ageSeconds(nowMs);
    return {
      receiving: age !== null && age * 1000 <= staleMs,
      messages_received: this.messagesReceived,
      messages_accepted: this.messagesAccepted,
      json_messages: this.json,
      cygnus_messages: this.cygnus,
      nmea_messages: this.nmea,
      nmea_without_fix: this.nmeaWithoutFix,
      bad_lines: this.badLines,
      checksum_errors: this.checksumErrors,
      oversize_lines: this.oversize,
      last_error: this.lastError,
      last_source: this.lastSource,
      last_input_age_seconds: age === null ? null : Math.round(age * 10) / 10,
    };
  }
}
