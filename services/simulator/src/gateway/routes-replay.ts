import type { OpenAPIHono } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import { DEFAULT_BODY_LIMIT, readBodyChunks, refusedBody } from '@outpost/runtime';
import type { Context } from 'hono';
import type { SimulatorService } from '../app/simulator-service.js';
import { input, jsonRoute } from './openapi.js';

const Status = simulator.ReplayStatus;
const MAX_MB = simulator.REPLAY_MAX_BYTES / (1024 * 1024);

export const isReplayUpload = (c: Context): boolean =>
  c.req.method === 'POST' && c.req.path === '/api/replay';

/** The upload alone may be this large (see the app's bodyLimit); every other body stays small. */
export function bodyLimitFor(c: Context): number {
  return isReplayUpload(c) ? simulator.REPLAY_MAX_BYTES : DEFAULT_BODY_LIMIT;
}

/**
 * The upload as text in the pieces it arrived in: each socket chunk (at most 64 KiB) is decoded when
 * it comes (a streaming TextDecoder keeps a character split between chunks whole), in its own turn of
 * the event loop. The 10 MB file is never held as one buffer nor joined into one string: the readers
 * take the pieces (parseTrack), so no step works on the whole file at once.
 */
async function bodyParts(c: Context): Promise<string[] | Response> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  const read = await readBodyChunks(c, simulator.REPLAY_MAX_BYTES, (chunk) => {
    const text = decoder.decode(chunk, { stream: true });
    if (text) parts.push(text);
  });
  if (read !== 'read') return refusedBody(c, read, simulator.REPLAY_MAX_BYTES);
  const tail = decoder.decode();
  if (tail) parts.push(tail);
  return parts;
}

export function replayRoutes(app: OpenAPIHono, service: SimulatorService): void {
  const autopilot = service.autopilot;

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/replay',
      summary: `Upload an NMEA log (GGA/RMC) or a GPX track as the request body (at most ${MAX_MB} MB) and play it back through every output; lines that do not read are skipped and counted`,
      tags: ['replay'],
      query: simulator.ReplayUploadQuery,
      file: {
        types: ['application/octet-stream', 'text/plain', 'application/gpx+xml'],
        description: `An NMEA-0183 log (GGA and RMC sentences, one per line) or a GPX 1.1 track, at most ${MAX_MB} MB; the content type is not read (format= or the file's own first bytes decide)`,
      },
      response: Status,
      errors: { 413: `The file is larger than ${MAX_MB} MB` },
    },
    async (c) => {
      const q = input<{ format?: 'nmea' | 'gpx'; speed: number; loop: boolean; paused: boolean }>(c, 'query');
      const parts = await bodyParts(c);
      if (parts instanceof Response) return parts;
      return c.json(await autopilot.load(parts, q), 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/replay',
      summary: 'The loaded track and where playback is',
      tags: ['replay'],
      response: Status,
    },
    (c) => c.json(autopilot.replayView(), 200),
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/replay/control',
      summary: 'Speed (1× to 16×), pause, loop, or a jump to a time in the track',
      tags: ['replay'],
      body: simulator.ReplayControl,
      response: Status,
      errors: { 404: 'No track loaded' },
    },
    (c) => c.json(autopilot.control(input(c, 'json')), 200),
  );

  jsonRoute(
    app,
    {
      method: 'delete',
      path: '/api/replay',
      summary: 'Unload the track; the aircraft holds its altitude, speed and heading',
      tags: ['replay'],
      response: Status,
    },
    (c) => c.json(autopilot.clearReplay(), 200),
  );
}
