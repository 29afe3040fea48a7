/**
 * The bus's topics without their payload schemas: levels, QoS, retain, and who may publish and read
 * each one. The broker builds its ACL from this table, so it lives in a module without zod; topics.ts
 * adds the schemas to the same keys.
 */
import { DEFAULT_PREFIX } from './prefix.js';

/** The accounts' roles on the bus (the broker's users file, the launcher's accounts). */
export const BUS_ROLES = [
  'controller',
  'relaynode',
  'notifier',
  'simulator',
  'dashboard',
  'automation',
  'viewer',
  'feedback',
] as const;
export type BusRole = (typeof BUS_ROLES)[number];

/** The roles that run a service, each with its own topics under `<svc>/<id>/`. */
export const SERVICE_ROLES = ['controller', 'relaynode', 'notifier', 'simulator', 'dashboard'] as const;

/**
 * What a role may do beyond the grants of the routes below.
 * - `read`: `all`, any filter (read-only tools, the notifier and the dashboard, which read the whole
 *   fleet); `bus`, anything under the prefix and Home Assistant's; `own`, its own `<role>/<id>/#` and
 *   its grants; `granted`, its grants only. Requests and responses are delivered to their two ends
 *   only, whatever the filter (the broker's canRead).
 * - `ownTopics`: it may also publish topics no route lists under its own `<role>/<id>/`. Not the relay
 *   node: its credentials sit in the generator shed, so they get exactly the routes granted to them.
 */
export const ROLE_SCOPES: Readonly<
  Record<BusRole, { read: 'all' | 'bus' | 'own' | 'granted'; ownTopics: boolean }>
> = {
  controller: { read: 'bus', ownTopics: true },
  relaynode: { read: 'granted', ownTopics: false },
  notifier: { read: 'all', ownTopics: true },
  simulator: { read: 'own', ownTopics: true },
  dashboard: { read: 'all', ownTopics: true },
  automation: { read: 'all', ownTopics: false },
  viewer: { read: 'all', ownTopics: false },
  /** Publishes "the engine runs" and nothing else: a smart plug, an energy meter, a panel's contact. */
  feedback: { read: 'granted', ownTopics: false },
};

/**
 * One role's right to a topic. `params` pins template parameters to a literal, to one of a list, or to
 * the account itself: `{id}` is its instance id (`*` accounts: any), `{role}` its role, `{username}` its
 * login; a value may embed them (`outpost_{role}_{id}`). Parameters not pinned are free.
 */
export interface Grant {
  readonly role: BusRole;
  readonly params?: Readonly<Record<string, string | readonly string[]>>;
}

export interface TopicRoute<T extends string = string> {
  /** Levels with `{param}` placeholders. */
  readonly template: T;
  readonly retain: boolean;
  readonly qos: 0 | 1;
  /** Switches something: never retained, never queued while offline (ARCHITECTURE.md, MQTT principles). */
  readonly command: boolean;
  /** Under `<MQTT_TOPIC_PREFIX>/`; Home Assistant's topics are not (their first level is its prefix). */
  readonly prefixed: boolean;
  /** Plain string payload rather than JSON (availability, HA birth). */
  readonly raw: boolean;
  readonly publish: readonly Grant[];
  /** The roles whose services read it; READ_SCOPE says what else each role may read. */
  readonly subscribe: readonly Grant[];
}

type Options = Partial<Omit<TopicRoute, 'template'>>;

const route = <const T extends string>(template: T, opts: Options = {}): TopicRoute<T> => ({
  template,
  retain: opts.retain ?? false,
  qos: opts.qos ?? 1,
  command: opts.command ?? false,
  prefixed: opts.prefixed ?? true,
  raw: opts.raw ?? false,
  publish: opts.publish ?? [],
  subscribe: opts.subscribe ?? [],
});

/** The role, on topics of its own instance. */
const own = (role: BusRole, params: Grant['params'] = {}): Grant => ({
  role,
  params: { id: '{id}', ...params },
});
const any = (role: BusRole, params: Grant['params'] = {}): Grant => ({ role, params });
/** Every service, each on `<its role>/<its id>/…` only. */
const eachServiceOwn = SERVICE_ROLES.map((role) => own(role, { svc: role }));

export const ROUTES = {
  availability: route('{svc}/{id}/availability', {
    retain: true,
    raw: true,
    publish: eachServiceOwn,
    subscribe: [any('controller'), any('relaynode', { svc: 'controller' }), any('dashboard')],
  }),
  controllerState: route('controller/{id}/state', {
    retain: true,
    publish: [own('controller')],
    subscribe: [any('relaynode'), any('dashboard')],
  }),
  controllerStats: route('controller/{id}/stats', { retain: true, publish: [own('controller')] }),
  controllerEvent: route('controller/{id}/event/{name}', {
    publish: [own('controller')],
    subscribe: [any('notifier')],
  }),
  controllerSet: route('controller/{id}/set', {
    command: true,
    publish: [any('automation'), own('controller')],
    subscribe: [own('controller')],
  }),
  /** The same command on the sending account's own topic: `{account}` is tied to the login. */
  controllerSetAs: route('controller/{id}/set/{account}', {
    command: true,
    publish: [any('automation', { account: '{username}' }), own('controller')],
    subscribe: [own('controller')],
  }),
  /**
   * Retained state from a smart plug or an energy meter: not a `/set` command. It can stop a run (a
   * fall mid-run), so only the `feedback` role publishes it; `automation` only where the broker's
   * MQTT_AUTOMATION_FEEDBACK says so.
   */
  controllerRunningFeedback: route('controller/{id}/running_feedback', {
    retain: true,
    raw: true,
    publish: [any('feedback'), own('controller')],
    subscribe: [own('controller')],
  }),
  relaynodeDesired: route('relaynode/{id}/desired', {
    command: true,
    publish: [any('controller')],
    subscribe: [own('relaynode')],
  }),
  relaynodeState: route('relaynode/{id}/state', {
    retain: true,
    publish: [own('relaynode')],
    subscribe: [any('controller'), any('dashboard')],
  }),
  /** The relay node's own events (EPO, failsafe), beside the controller's. */
  relaynodeEvent: route('relaynode/{id}/event/{name}', { publish: [own('relaynode')] }),
  /** The generator's own controller read over Modbus by the relay node (GENSET_TRANSPORT set). */
  relaynodeGenset: route('relaynode/{id}/genset', {
    retain: true,
    publish: [own('relaynode')],
    subscribe: [any('controller')],
  }),
  /** The controller asks a relay node or the notifier; the service answers on `response`. */
  request: route('{svc}/{id}/request/{verb}', {
    command: true,
    publish: [any('controller', { svc: ['relaynode', 'notifier'] })],
    subscribe: [own('relaynode', { svc: 'relaynode' }), own('notifier', { svc: 'notifier' })],
  }),
  response: route('{svc}/{id}/response/{verb}', {
    publish: eachServiceOwn,
    subscribe: [any('controller')],
  }),
  simulatorPosition: route('simulator/{id}/position', {
    qos: 0,
    publish: [own('simulator')],
    subscribe: [any('dashboard')],
  }),
  simulatorRunning: route('simulator/{id}/running', { retain: true, publish: [own('simulator')] }),
  simulatorHeartbeat: route('simulator/{id}/heartbeat', {
    qos: 0,
    publish: [own('simulator')],
    subscribe: [any('dashboard')],
  }),
  dashboardFleet: route('dashboard/{id}/fleet', { qos: 0, publish: [own('dashboard')] }),
  /** Each account announces its own device only: a simulator cannot replace the controller's switches. */
  haDiscovery: route('homeassistant/device/{id}/config', {
    retain: true,
    prefixed: false,
    publish: ['controller', 'simulator'].map((role) => any(role as BusRole, { id: 'outpost_{role}_{id}' })),
    subscribe: [any('automation')],
  }),
  /** Home Assistant's birth message: the announcing services publish their discovery again. */
  haStatus: route('homeassistant/status', {
    prefixed: false,
    raw: true,
    publish: [any('automation')],
    subscribe: [any('controller'), any('simulator')],
  }),
} as const;

export type RouteKey = keyof typeof ROUTES;

type ParamNames<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? P | ParamNames<Rest>
  : never;
export type RouteParams<K extends RouteKey> = { [P in ParamNames<(typeof ROUTES)[K]['template']>]: string };

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

/** The route's levels with the prefix in front (or, for Home Assistant's, its own first level). */
export function routeTemplate(key: RouteKey, prefix = DEFAULT_PREFIX, haPrefix?: string): string {
  const r = ROUTES[key];
  if (!r.prefixed) return haPrefix ? r.template.replace(/^homeassistant(?=\/|$)/, haPrefix) : r.template;
  return prefix ? `${prefix}/${r.template}` : r.template;
}

/** The concrete topic for a key and its parameters. */
export function topicFor<K extends RouteKey>(
  key: K,
  params: RouteParams<K>,
  prefix = DEFAULT_PREFIX,
): string {
  return fill(routeTemplate(key, prefix), params as Record<string, string>, false);
}

/** A subscription filter: omitted parameters become `+`. */
export function topicFilter<K extends RouteKey>(
  key: K,
  params: Partial<RouteParams<K>> = {},
  prefix = DEFAULT_PREFIX,
): string {
  return fill(routeTemplate(key, prefix), params as Record<string, string>, true);
}

/** Reads the parameters back out of a concrete topic; null when the topic is not of this key. */
export function parseTopic<K extends RouteKey>(
  key: K,
  topic: string,
  prefix = DEFAULT_PREFIX,
  haPrefix?: string,
): RouteParams<K> | null {
  const want = routeTemplate(key, prefix, haPrefix).split('/');
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
  return params as RouteParams<K>;
}

/**
 * Whether a start-condition source may read `topic`: anything outside the bus prefix (a bridged GX,
 * ESPHome, Home Assistant's statestream); under it only a topic whose route names the controller as a
 * reader. Otherwise any service's account (a simulator's `load`) could feed a condition that starts the
 * generator.
 */
export function sourceTopicInLane(topic: string, prefix = DEFAULT_PREFIX): boolean {
  const route = (Object.keys(ROUTES) as RouteKey[]).find(
    (key) => ROUTES[key].prefixed && parseTopic(key, topic, prefix) !== null,
  );
  if (route) return ROUTES[route].subscribe.some((g) => g.role === 'controller');
  if (prefix) return topic !== prefix && !topic.startsWith(`${prefix}/`);
  // No prefix: the services' topics start with their role.
  return !(SERVICE_ROLES as readonly string[]).includes(topic.split('/')[0] as string);
}
