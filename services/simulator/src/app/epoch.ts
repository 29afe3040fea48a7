import type { EngineState, PositionValues } from '../domain/engine.js';
import { gdl90Epoch } from '../domain/gdl90/index.js';
import { buildSentences } from '../domain/nmea/index.js';
import { formatXgps } from '../domain/xgps.js';
import type { RunOutputs } from './run-outputs.js';
import type { Settings } from './settings.js';

/** The JSON line a sender publishes in `sender_format: json`; the receiver's JSON format. */
export function senderJsonLine(p: PositionValues, nowMs: number): string {
  const body = {
    lat: p.lat,
    lon: p.lon,
    alt_ft: p.altitude_ft,
    speed_kts: p.speed_kts,
    heading: p.heading,
    timestamp: new Date(nowMs).toISOString(),
  };
  return `${JSON.stringify(body)}\n`;
}

/**
 * One second's output of a run: the selected NMEA sentences to USB and the sender, the XGPS line and
 * the GDL 90 frames to every EFB target. Returns the sentences for the live stream.
 */
export function emitEpoch(run: RunOutputs, settings: Settings, p: EngineState, nowMs: number): string[] {
  const fix = {
    lat: p.lat,
    lon: p.lon,
    altitude_ft: p.altitude_ft,
    speed_kts: p.speed_kts,
    track: p.heading,
    timeMs: nowMs,
  };
  const sentences = buildSentences(fix, settings.nmea);
  run.serial?.write(sentences.join(''));
  if (run.plan.sender) {
    run.send(settings.network.sender_format === 'json' ? [senderJsonLine(p, nowMs)] : sentences);
  }
  run.efb?.send(formatXgps(settings.network.efb_sim_name, fix));
  if (run.gdl90) {
    const ownship = { ...fix, vertical_fpm: p.vertical_fpm };
    const net = settings.network;
    for (const frame of gdl90Epoch(net.efb_sim_name, ownship, nowMs, net.gdl90_traffic))
      run.gdl90.send(frame);
  }
  return sentences;
}

/** A second without a position (a receiver's feed went quiet): GDL 90 still beats, GPS invalid. */
export function emitNoFix(run: RunOutputs, settings: Settings, nowMs: number): void {
  if (!run.gdl90) return;
  for (const frame of gdl90Epoch(settings.network.efb_sim_name, null, nowMs)) run.gdl90.send(frame);
}
