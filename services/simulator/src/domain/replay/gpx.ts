import { SaxesParser } from 'saxes';
import { slicesOf, type TrackText } from './text-parts.js';
import { MAX_PROBLEMS, type Pause, Problems, type Track, type TrackPoint } from './track.js';

const FEET_PER_METRE = 1 / 0.3048;
/** Characters fed to the XML parser between two turns of the event loop (a few ms of work each). */
const CHUNK_CHARS = 16 * 1024;
/** Longest `ele` or `time` text kept: anything longer is not a number or a date anyway. */
const MAX_FIELD_CHARS = 64;
const MAX_DEPTH = 32;
/**
 * A GPX tag is a name and a few short attributes. saxes gathers a tag whole and checks its attributes
 * only when the tag closes (a million of them held the loop most of a second), so a tag longer or with
 * more attributes than this refuses the file before the parser does that work.
 */
export const MAX_TAG_CHARS = 4096;
export const MAX_TAG_ATTRIBUTES = 64;
/** Thrown out of the parser at its first error: reading stops there (see parseGpx). */
class XmlError extends Error {}
/** A tag over the bounds: the whole file is refused (422), whatever was read before it. */
class TagTooLarge extends Error {}

type Kind = 'trkpt' | 'rtept';

/** The points of one kind (track or route), numbered and checked as they close. */
class PointList {
  readonly points: TrackPoint[] = [];
  readonly problems = new Problems();
  private n = 0;
  private timed: boolean | null = null;

  constructor(readonly kind: Kind) {}

  add(lat: number, lon: number, eleText: string | undefined, timeText: string | undefined): void {
    const kind = this.kind;
    const n = ++this.n;
    if (!(Number.isFinite(lat) && Math.abs(lat) <= 90 && Number.isFinite(lon) && Math.abs(lon) <= 180)) {
      this.problems.add(`${kind} ${n}: bad lat/lon`);
      return;
    }
    const ele = eleText === undefined ? null : Number(eleText);
    const time = timeText === undefined ? null : Date.parse(timeText);
    if (timeText !== undefined && !Number.isFinite(time)) {
      this.problems.add(`${kind} ${n}: bad time ${JSON.stringify(timeText.slice(0, 40))}`);
      return;
    }
    this.timed ??= time !== null;
    if (this.timed !== (time !== null)) {
      this.problems.add(`${kind} ${n}: ${this.timed ? 'no time' : 'a time among untimed points'}`);
      return;
    }
    const last = this.points[this.points.length - 1];
    const timeMs = time ?? (last ? last.timeMs + 1000 : 0);
    if (last && timeMs <= last.timeMs) {
      this.problems.add(`${kind} ${n}: time does not move forward`);
      return;
    }
    this.points.push({
      timeMs,
      lat,
      lon,
      altitude_ft: ele !== null && Number.isFinite(ele) ? ele * FEET_PER_METRE : null,
      speed_kts: null,
      heading: null,
    });
  }

  get count(): number {
    return this.n;
  }
}

/** `gpx:trkpt` and `trkpt` alike. */
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * A GPX file's track points (`trkpt`, else route points `rtept`) with `ele` and `time`, read by a
 * streaming XML parser (saxes) in chunks, with a turn of the event loop between chunks: the work is
 * linear in the file and no chunk holds the loop for long, so NMEA and EFB output keep their second
 * while a 10 MB upload is read. A point that does not read (bad coordinates, a bad time, time running
 * backwards) is skipped and counted; at malformed XML reading stops, keeping the points before it, and
 * the problem is reported. Points without any time are spaced one second apart.
 */
export async function parseGpx(text: TrackText, pause: Pause): Promise<Track> {
  const lists: Record<Kind, PointList> = { trkpt: new PointList('trkpt'), rtept: new PointList('rtept') };
  let xmlProblem: string | null = null;
  let point: { kind: Kind; lat: number; lon: number; ele?: string; time?: string } | null = null;
  let field: { name: 'ele' | 'time'; text: string } | null = null;

  const parser = new SaxesParser({ position: true });
  // The first error ends the read: a parser told to go on after errors spends its time on them (a
  // file of unclosed tags costs it far more than a well-formed one), and the file is not GPX anyway.
  parser.on('error', (err) => {
    throw new XmlError(err.message.slice(0, 120));
  });
  // GPX nests a few levels (gpx, trk, trkseg, trkpt, ele, extensions): a file nesting far deeper is
  // not one, and a parser's cost per tag grows with the depth.
  let depth = 0;
  // Where the tag being read started (characters into the file), and its attributes so far.
  let tagStart: number | null = null;
  let attributes = 0;
  const tagLine = () => `line ${parser.line}`;
  // Characters written so far: between two writes saxes's own position counts the last slice twice.
  let fed = 0;
  const checkTagLength = (at: number) => {
    if (tagStart !== null && at - tagStart > MAX_TAG_CHARS)
      throw new TagTooLarge(`a tag longer than ${MAX_TAG_CHARS} characters at ${tagLine()}`);
  };
  parser.on('opentagstart', () => {
    tagStart = parser.position;
    attributes = 0;
  });
  parser.on('attribute', () => {
    if (++attributes > MAX_TAG_ATTRIBUTES)
      throw new TagTooLarge(`a tag with more than ${MAX_TAG_ATTRIBUTES} attributes at ${tagLine()}`);
    checkTagLength(parser.position);
  });
  parser.on('opentag', (tag) => {
    tagStart = null;
    if (++depth > MAX_DEPTH) throw new XmlError(`elements nested more than ${MAX_DEPTH} deep`);
    const name = localName(tag.name);
    if (name === 'trkpt' || name === 'rtept') {
      const attr = (key: string) => {
        const v = tag.attributes[key];
        return Number(typeof v === 'string' && v.trim() !== '' ? v : Number.NaN);
      };
      point = { kind: name, lat: attr('lat'), lon: attr('lon') };
    } else if (point && (name === 'ele' || name === 'time') && point[name] === undefined) {
      field = { name, text: '' };
    }
  });
  parser.on('text', (t) => {
    if (field && field.text.length < MAX_FIELD_CHARS) field.text += t.slice(0, MAX_FIELD_CHARS);
  });
  // One handler per event (saxes keeps the last one set): the depth is counted down here too.
  parser.on('closetag', (tag) => {
    depth--;
    const name = localName(tag.name);
    if (field && name === field.name) {
      if (point) point[field.name] = field.text.trim();
      field = null;
    } else if (point && name === point.kind) {
      lists[point.kind].add(point.lat, point.lon, point.ele, point.time);
      point = null;
      field = null;
    }
  });

  try {
    for (const slice of slicesOf(text, CHUNK_CHARS)) {
      parser.write(slice);
      fed += slice.length;
      // An attribute value or a tag with no attribute event yet grows only here, a slice at a time.
      checkTagLength(fed);
      await pause();
    }
    parser.close();
  } catch (err) {
    if (err instanceof TagTooLarge)
      return {
        format: 'gpx',
        points: [],
        skipped: 0,
        problems: [],
        refused: `Not a GPX file: ${err.message}`,
      };
    if (!(err instanceof XmlError)) throw err;
    xmlProblem = `not well-formed XML, read up to there: ${err.message}`;
  }

  const chosen = lists.trkpt.count > 0 ? lists.trkpt : lists.rtept;
  return {
    format: 'gpx',
    points: chosen.points,
    skipped: chosen.problems.skipped,
    problems: [...(xmlProblem ? [xmlProblem] : []), ...chosen.problems.first].slice(0, MAX_PROBLEMS),
  };
}
