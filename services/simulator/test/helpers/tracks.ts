/** Test files for replay: NMEA logs and GPX tracks made from a list of fixes. */

export interface Fix {
  /** ISO time. */
  time: string;
  lat: number;
  lon: number;
  altM: number;
  speedKts?: number;
  track?: number;
}

export function withChecksum(body: string): string {
  let x = 0;
  for (const ch of body) x ^= ch.charCodeAt(0);
  return `$${body}*${x.toString(16).toUpperCase().padStart(2, '0')}`;
}

function dm(v: number, degDigits: number): string {
  const a = Math.abs(v);
  const d = Math.floor(a);
  const m = (a - d) * 60;
  return `${String(d).padStart(degDigits, '0')}${m.toFixed(6).padStart(9, '0')}`;
}

export function nmeaLines(f: Fix): [string, string] {
  const t = new Date(f.time);
  const hh = String(t.getUTCHours()).padStart(2, '0');
  const mm = String(t.getUTCMinutes()).padStart(2, '0');
  const ss = String(t.getUTCSeconds()).padStart(2, '0');
  const date = `${String(t.getUTCDate()).padStart(2, '0')}${String(t.getUTCMonth() + 1).padStart(2, '0')}${String(t.getUTCFullYear() % 100).padStart(2, '0')}`;
  const lat = `${dm(f.lat, 2)},${f.lat >= 0 ? 'N' : 'S'}`;
  const lon = `${dm(f.lon, 3)},${f.lon >= 0 ? 'E' : 'W'}`;
  return [
    withChecksum(
      `GPRMC,${hh}${mm}${ss}.00,A,${lat},${lon},${(f.speedKts ?? 0).toFixed(1)},${(f.track ?? 0).toFixed(1)},${date},,,A`,
    ),
    withChecksum(`GPGGA,${hh}${mm}${ss}.00,${lat},${lon},1,08,0.9,${f.altM.toFixed(1)},M,0.0,M,,`),
  ];
}

export function gpx(fixes: Array<Omit<Fix, 'time'> & { time?: string }>): string {
  const pts = fixes
    .map(
      (f) =>
        `<trkpt lat="${f.lat}" lon="${f.lon}"><ele>${f.altM}</ele>${f.time ? `<time>${f.time}</time>` : ''}</trkpt>`,
    )
    .join('\n      ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>t</name><trkseg>
      ${pts}
  </trkseg></trk>
</gpx>
`;
}
