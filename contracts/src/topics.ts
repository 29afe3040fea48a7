import { z } from 'zod';
import { Availability, RequestEnvelope, ResponseEnvelope } from './common.js';
import { FleetState } from './dashboard.js';
import { ControllerEvent, ControllerSetCommand, ControllerStats, GeneratorState } from './generator.js';
import { RunningFeedbackPayload } from './health.js';
import { DesiredState, RelaynodeState } from './relaynode.js';
import { DEFAULT_PREFIX } from './prefix.js';
import { SimulatorHeartbeat, SimulatorPosition, SimulatorRunning } from './simulator.js';

export { DEFAULT_PREFIX };

export interface TopicSpec<S extends z.ZodType = z.ZodType> {
  /** Levels with `{param}` placeholders. */
  readonly template: string;
  readonly schema: S;
  readonly retain: boolean;
  readonly qos: 0 | 1;
  /** Switches something: never retained, never queued while offline (ARCHITECTURE.md, MQTT principles). */
  readonly command: boolean;
  /** Under `<MQTT_TOPIC_PREFIX>/`; Home Assistant's topics are not. */
  readonly prefixed: boolean;
  /** Plain string payload rather than JSON (availability, HA birth). */
  readonly raw: boolean;
}

const spec = <const T extends string, S extends z.ZodType>(
  template: T,
  schema: S,
  opts: Partial<Omit<TopicSpec<S>, 'template' | 'schema'>> = {},
): TopicSpec<S> & { readonly template: T } => ({
  template,
  schema,
  retain: opts.retain ?? false,
  qos: opts.qos ?? 1,
  command: opts.command ?? false,
  prefixed: opts.prefixed ?? true,
  raw: opts.raw ?? false,
});

const HaDiscovery = z.union([z.record(z.string(), z.unknown()), z.literal('')]);

/** The one topic → payload contract of the bus. */
export const TOPICS = {
  availability: spec('{svc}/{id}/availability', Availability, { retain: true, raw: true }),
  controllerState: spec('controller/{id}/state', GeneratorState, { retain: true }),
  controllerStats: spec('controller/{id}/stats', ControllerStats, { retain: true }),
  controllerEvent: spec('controller/{id}/event/{name}', ControllerEvent),
  controllerSet: spec('controller/{id}/set', ControllerSetCommand, { command: true }),
  /** The same command on the sending account's own topic; the broker ACL ties `{account}` to the login. */
  controllerSetAs: spec('controller/{id}/set/{account}', ControllerSetCommand, { command: true }),
  /** Retained state from Home Assistant, a smart plug or an energy meter: not a `/set` command. */
  controllerRunningFeedback: spec('controller/{id}/running_feedback', RunningFeedbackPayload, {
    retain: true,
    raw: true,
  }),
  relaynodeDesired: spec('relaynode/{id}/desired', DesiredState, { command: true }),
  relaynodeState: spec('relaynode/{id}/state', RelaynodeState, { retain: true }),
  request: spec('{svc}/{id}/request/{verb}', RequestEnvelope, { command: true }),
  response: spec('{svc}/{id}/response/{verb}', ResponseEnvelope),
  simulatorPosition: spec('simulator/{id}/position', SimulatorPosition, { qos: 0 }),
  simulatorRunning: spec('simulator/{id}/running', SimulatorRunning, { retain: true }),
  simulatorHeartbeat: spec('simulator/{id}/heartbeat', SimulatorHeartbeat, { qos: 0 }),
  dashboardFleet: spec('dashboard/{id}/fleet', FleetState, { retain: false, qos: 0 }),
  haDiscovery: spec('homeassistant/device/{id}/config', HaDiscovery, { retain: true, prefixed: false }),
  haStatus: spec('homeassistant/status', Availability, { prefixed: false, raw: true }),
} as const;

export type TopicKey = keyof typeof TOPICS;
export type PayloadOf<K extends TopicKey> = z.infer<(typeof TOPICS)[K]['schema']>;
export type PayloadInput<K extends TopicKey> = z.input<(typeof TOPICS)[K]['schema']>;

type ParamNames<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? P | ParamNames<Rest>
  : never;
export type TopicParams<K extends TopicKey> = { [P in ParamNames<(typeof TOPICS)[K]['template']>]: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what a topic level must not contain
const LEVEL = /^[^/#+\u0000]+$/;

function fill(template: string, params: Record<string, string>, wildcard: boolean): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      if (wildcard) return '+';
      throw new Error(`topic parameter "${name}" missing for ${template}`);
    }
    if (!LEVEL.test(value)) throw new Error(`topic parameter "${name}" is not a valid topic level: ${value}`);
    return value;
  });
}

function withPrefix(prefix: string, key: TopicKey, topic: string): string {
  return TOPICS[key].prefixed && prefix ? `${prefix}/${topic}` : topic;
}

/** The concrete topic for a key and its parameters. */
export function topicFor<K extends TopicKey>(
  key: K,
  params: TopicParams<K>,
  prefix = DEFAULT_PREFIX,
): string {
  return withPrefix(prefix, key, fill(TOPICS[key].template, params as Record<string, string>, false));
}

/** A subscription filter: omitted parameters become `+`. */
export function topicFilter<K extends TopicKey>(
  key: K,
  params: Partial<TopicParams<K>> = {},
  prefix = DEFAULT_PREFIX,
): string {
  return withPrefix(prefix, key, fill(TOPICS[key].template, params as Record<string, string>, true));
}

/** Reads the parameters back out of a concrete topic; null when the topic is not of this key. */
export function parseTopic<K extends TopicKey>(
  key: K,
  topic: string,
  prefix = DEFAULT_PREFIX,
): TopicParams<K> | null {
  const spec = TOPICS[key];
  const full = spec.prefixed && prefix ? `${prefix}/${spec.template}` : spec.template;
  const want = full.split('/');
  const got = topic.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    const m = /^\{(\w+)\}$/.exec(w);
    if (m) params[m[1] as string] = g;
    else if (w !== g) return null;
  }
  return params as TopicParams<K>;
}

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
