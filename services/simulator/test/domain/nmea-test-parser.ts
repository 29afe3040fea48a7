/** A small independent NMEA-0183 reader used only to check what the encoder writes. */
export interface ParsedSentence {
  talker: string;
  type: string;
  fields: string[];
  checksum: string;
  computed: string;
}

export function parseSentence(s: string): ParsedSentence {
  if (!s.startsWith('$')) throw new Error(`no $: ${JSON.stringify(s)}`);
  if (!s.endsWith('\r\n')) throw new Error(`no CRLF: ${JSON.stringify(s)}`);
  const star = s.lastIndexOf('*');
  if (star === -1 || star !== s.length - 5) throw new Error(`bad checksum position: ${JSON.stringify(s)}`);
  const body = s.slice(1, star);
  let x = 0;
  for (const ch of body) x ^= ch.charCodeAt(0);
  const computed = x.toString(16).toUpperCase().padStart(2, '0');
  const fields = body.split(',');
  const head = fields.shift()!;
  return {
    talker: head.slice(0, 2),
    type: head.slice(2),
    fields,
    checksum: s.slice(star + 1, star + 3),
    computed,
  };
}

/** `ddmm.mmmm` + hemisphere to signed degrees. */
export function parseLat(v: string, hemi: string): number {
  if (!/^\d{4}\.\d{4}$/.test(v)) throw new Error(`bad lat ${v}`);
  if (hemi !== 'N' && hemi !== 'S') throw new Error(`bad hemisphere ${hemi}`);
  const deg = Number(v.slice(0, 2)) + Number(v.slice(2)) / 60;
  return hemi === 'S' ? -deg : deg;
}

export function parseLon(v: string, hemi: string): number {
  if (!/^\d{5}\.\d{4}$/.test(v)) throw new Error(`bad lon ${v}`);
  if (hemi !== 'E' && hemi !== 'W') throw new Error(`bad hemisphere ${hemi}`);
  const deg = Number(v.slice(0, 3)) + Number(v.slice(3)) / 60;
  return hemi === 'W' ? -deg : deg;
}

/** Minutes field must be < 60 (the rounding carry went into the degrees). */
export function minutesOf(v: string, degDigits: number): number {
  return Number(v.slice(degDigits));
}
