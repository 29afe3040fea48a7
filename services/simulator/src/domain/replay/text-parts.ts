/**
 * An uploaded file as text: one string, or the pieces it arrived in (the route decodes each socket
 * chunk as it comes and never joins them, so no step holds the event loop for the whole file).
 */
export type TrackText = string | readonly string[];

export const partsOf = (text: TrackText): readonly string[] => (typeof text === 'string' ? [text] : text);

/** The first `n` characters. */
export function headOf(text: TrackText, n: number): string {
  let out = '';
  for (const part of partsOf(text)) {
    if (out.length >= n) break;
    out += part.slice(0, n - out.length);
  }
  return out;
}

/** Pieces of at most `size` characters, in order. */
export function* slicesOf(text: TrackText, size: number): Generator<string> {
  for (const part of partsOf(text)) {
    for (let at = 0; at < part.length; at += size) yield part.slice(at, at + size);
  }
}

/**
 * The lines with their index (a `\r` ending one dropped), found with indexOf across the pieces: no
 * 10 MB regular-expression split. A line longer than `maxChars` comes as its first maxChars + 1
 * characters (it is refused for its length anyway), so a file that is one long line is never gathered
 * into one string.
 */
export function* linesOf(text: TrackText, maxChars: number): Generator<[number, string]> {
  const cap = maxChars + 1;
  let i = 0;
  // The line so far: its first `cap` characters, and its whole length.
  let carry = '';
  let carryLength = 0;
  for (const part of partsOf(text)) {
    let start = 0;
    for (;;) {
      const end = part.indexOf('\n', start);
      if (end === -1) {
        if (carry.length < cap) carry += part.slice(start, start + cap - carry.length);
        carryLength += part.length - start;
        break;
      }
      if (carryLength + (end - start) > cap) {
        yield [i++, (carry + part.slice(start, start + cap)).slice(0, cap)];
      } else {
        const line = carry + part.slice(start, end);
        yield [i++, line.endsWith('\r') ? line.slice(0, -1) : line];
      }
      carry = '';
      carryLength = 0;
      start = end + 1;
    }
  }
  yield [i, carry];
}
