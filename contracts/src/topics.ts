import { z } from 'zod';
import { Availability, RequestEnvelope, ResponseEnvelope } from './common.js';
import { FleetState } from './dashboard.js';
import { ControllerEvent, ControllerSetCommand, ControllerStats, GeneratorState } from './generator.js';
import { GensetState } from './genset.js';
import { RunningFeedbackPayload } from './health.js';
import { DesiredState, RelaynodeState } from './relaynode.js';
import { SimulatorHeartbeat, SimulatorPosition, SimulatorRunning } from './simulator.js';
import {
  parseTopic,
  type RouteKey,
  type RouteParams,
  ROUTES,
  type TopicRoute,
  topicFilter,
  topicFor,
} from './topic-routes.js';

export { DEFAULT_PREFIX } from './prefix.js';
export {
  BUS_ROLES,
  type BusRole,
  type Grant,
  ROLE_SCOPES,
  ROUTES,
  SERVICE_ROLES,
  type TopicRoute,
} from './topic-routes.js';

export interface TopicSpec<S extends z.ZodType = z.ZodType, T extends string = string> extends TopicRoute<T> {
  readonly schema: S;
}

const spec = <K extends RouteKey, S extends z.ZodType>(
  key: K,
  schema: S,
): TopicSpec<S, (typeof ROUTES)[K]['template']> => ({ ...ROUTES[key], schema });

const HaDiscovery = z.union([z.record(z.string(), z.unknown()), z.literal('')]);
/** No publisher yet: the relay node's own events, reserved beside the controller's. */
const RelaynodeEvent = z.record(z.string(), z.unknown());

/** The one topic → payload contract of the bus: the routes (topic-routes.ts) with their schemas. */
export const TOPICS = {
  availability: spec('availability', Availability),
  controllerState: spec('controllerState', GeneratorState),
  controllerStats: spec('controllerStats', ControllerStats),
  controllerEvent: spec('controllerEvent', ControllerEvent),
  controllerSet: spec('controllerSet', ControllerSetCommand),
  controllerSetAs: spec('controllerSetAs', ControllerSetCommand),
  controllerRunningFeedback: spec('controllerRunningFeedback', RunningFeedbackPayload),
  relaynodeDesired: spec('relaynodeDesired', DesiredState),
  relaynodeState: spec('relaynodeState', RelaynodeState),
  relaynodeEvent: spec('relaynodeEvent', RelaynodeEvent),
  relaynodeGenset: spec('relaynodeGenset', GensetState),
  request: spec('request', RequestEnvelope),
  response: spec('response', ResponseEnvelope),
  simulatorPosition: spec('simulatorPosition', SimulatorPosition),
  simulatorRunning: spec('simulatorRunning', SimulatorRunning),
  simulatorHeartbeat: spec('simulatorHeartbeat', SimulatorHeartbeat),
  dashboardFleet: spec('dashboardFleet', FleetState),
  haDiscovery: spec('haDiscovery', HaDiscovery),
  haStatus: spec('haStatus', Availability),
} as const satisfies Record<RouteKey, TopicSpec>;

export type TopicKey = RouteKey;
export type PayloadOf<K extends TopicKey> = z.infer<(typeof TOPICS)[K]['schema']>;
export type PayloadInput<K extends TopicKey> = z.input<(typeof TOPICS)[K]['schema']>;
export type TopicParams<K extends TopicKey> = RouteParams<K>;

export { parseTopic, topicFilter, topicFor };

export { filterMatches } from './topic-filter.js';

export type Decoded<K extends TopicKey> = { ok: true; value: PayloadOf<K> } | { ok: false; error: string };

/** Validates and serialises a payload for a topic; throws on a payload that breaks the contract. */
export function encodePayload<K extends TopicKey>(key: K, payload: PayloadInput<K>): string {
  const spec = TOPICS[key];
  const value = spec.schema.parse(payload);
  if (spec.raw) return String(value);
  if (key === 'haDiscovery' && value === '') return '';
  return JSON.stringify(value);
}

/** Parses and validates a received payload; never throws. */
export function decodePayload<K extends TopicKey>(key: K, payload: Uint8Array | string): Decoded<K> {
  const spec = TOPICS[key];
  const text = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  let raw: unknown = text;
  if (!spec.raw && !(key === 'haDiscovery' && text === '')) {
    try {
      raw = JSON.parse(text);
    } catch {
      return { ok: false, error: 'payload is not valid JSON' };
    }
  }
  const result = spec.schema.safeParse(raw);
  if (!result.success) return { ok: false, error: formatIssues(result.error) };
  return { ok: true, value: result.data as PayloadOf<K> };
}

/** One line naming each bad field: `field: message; other: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length ? issue.path.map(String).join('.') : '(body)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}
