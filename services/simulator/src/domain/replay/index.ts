import { parseGpx } from './gpx.js';
import { parseNmeaLog } from './nmea-log.js';
import { headOf, type TrackText } from './text-parts.js';
import type { Pause, Track } from './track.js';

export { Player, MAX_SPEED, MIN_SPEED, type ReplayState } from './player.js';
export {
  completeTrack,
  completeTrackPaused,
  type Pause,
  type ReplayPoint,
  type Track,
  type TrackPoint,
} from './track.js';
export { parseGpx, parseNmeaLog };
export { linesOf, type TrackText } from './text-parts.js';

/** GPX when the text is XML with a `<gpx` element, else an NMEA log. */
export function detectFormat(text: TrackText): 'gpx' | 'nmea' {
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<gpx\b/i.test(headOf(text, 4096)) ? 'gpx' : 'nmea';
}

/** Without a pause of the caller's (the app passes setImmediate), slices follow each other at once. */
const noPause: Pause = () => Promise.resolve();

export function parseTrack(
  text: TrackText,
  format: 'gpx' | 'nmea' = detectFormat(text),
  pause: Pause = noPause,
): Promise<Track> {
  return format === 'gpx' ? parseGpx(text, pause) : parseNmeaLog(text, pause);
}
