import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { filterMatches } from '@outpost/contracts/topic-filter';
import {
  parseTopic,
  ROLE_SCOPES,
  type RouteKey,
  ROUTES,
  routeTemplate,
} from '@outpost/contracts/topic-routes';
import type { Principal } from './users.js';

export type Verdict = { ok: true } | { ok: false; reason: string };

/** The services' topic prefix, so a broker started without MQTT_TOPIC_PREFIX guards the topics they use. */
export const DEFAULT_TOPIC_PREFIX = DEFAULT_PREFIX;
/** Home Assistant's discovery prefix (HA_DISCOVERY_PREFIX). */
export const DEFAULT_HA_PREFIX = 'homeassistant';

const OK: Verdict = { ok: true };
const VICTRON_KEEPALIVE = /^R\/[A-Za-z0-9]+\/keepalive$/;
const VICTRON_SERIAL = 'N/+/system/0/Serial';
const refuse = (reason: string): Verdict => ({ ok: false, reason });

export { filterMatches };

/**
 * True when every topic the `requested` filter can match is also matched by `allowed`,
 * so granting the subscription cannot leak anything outside `allowed`.
 */
export function filterCovers(allowed: string, requested: string): boolean {
  const a = allowed.split('/');
  const r = requested.split('/');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '#') return true;
    if (i >= r.length) return false;
    if (r[i] === '#') return false;
    if (a[i] === '+') continue;
    if (a[i] !== r[i]) return false;
  }
  return a.length === r.length;
}

function under(prefix: string, rel: string): string {
  return prefix ? `${prefix}/${rel}` : rel;
}

/**
 * Topics that can switch something. Retaining one would replay a stale command to the next
 * subscriber (a relay node coming back online), so the broker refuses retain on them for everyone:
 * every route marked `command`, and any `.../set` (an integration's own command topics).
 */
export function isCommandTopic(topic: string, prefix = DEFAULT_TOPIC_PREFIX): boolean {
  if (topic === 'set' || topic.endsWith('/set')) return true;
  return COMMAND_ROUTES.some((key) => parseTopic(key, topic, prefix) !== null);
}

const COMMAND_ROUTES = (Object.keys(ROUTES) as RouteKey[]).filter((key) => ROUTES[key].command);

/** A username that can stand in a topic level as itself (no wildcard, separator or control character). */
const TOPIC_SAFE = /^[A-Za-z0-9_.-]{1,64}$/;

/** One topic level of a grant, for one account. */
type Level = { kind: 'literal'; value: string } | { kind: 'any' } | { kind: 'pattern'; re: RegExp };

interface Rule {
  levels: Level[];
  /** A free last parameter (`request/{verb}`): a subscription may put `#` there. */
  openEnded: boolean;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A grant's value for one parameter, for this account; null when the account cannot use the grant. */
function levelFor(value: string | readonly string[] | undefined, user: Principal): Level | Level[] | null {
  if (value === undefined) return { kind: 'any' };
  if (typeof value !== 'string') return value.map((v) => ({ kind: 'literal', value: v }) as Level);
  if (value.includes('{username}') && !TOPIC_SAFE.test(user.username)) return null;
  const text = value.replaceAll('{role}', user.role).replaceAll('{username}', user.username);
  if (!text.includes('{id}')) return { kind: 'literal', value: text };
  if (user.id !== '*') return { kind: 'literal', value: text.replaceAll('{id}', user.id) };
  if (text === '{id}') return { kind: 'any' };
  // `*` accounts act for any instance: `outpost_controller_{id}` becomes a pattern over the level.
  return { kind: 'pattern', re: new RegExp(`^${text.split('{id}').map(escapeRe).join('[^/]+')}$`) };
}

/** Compiled once per account and prefixes: canPublish runs for every message the broker routes. */
const compiled = new WeakMap<Principal, Map<string, Rule[]>>();

/** The rules an account gets from the topic map, for publishing or for subscribing. */
function rulesFor(user: Principal, side: 'publish' | 'subscribe', prefix: string, ha: string): Rule[] {
  let forUser = compiled.get(user);
  if (!forUser) {
    forUser = new Map();
    compiled.set(user, forUser);
  }
  const key = `${side}\u0000${prefix}\u0000${ha}`;
  let rules = forUser.get(key);
  if (!rules) {
    rules = compileRules(user, side, prefix, ha);
    forUser.set(key, rules);
  }
  return rules;
}

function compileRules(user: Principal, side: 'publish' | 'subscribe', prefix: string, ha: string): Rule[] {
  const rules: Rule[] = [];
  for (const key of Object.keys(ROUTES) as RouteKey[]) {
    const levels = routeTemplate(key, prefix, ha).split('/');
    for (const grant of ROUTES[key][side]) {
      if (grant.role !== user.role) continue;
      // A list of values is one rule per value.
      let variants: Level[][] = [[]];
      for (const level of levels) {
        const param = /^\{(\w+)\}$/.exec(level)?.[1];
        const l = param
          ? levelFor(grant.params?.[param], user)
          : ({ kind: 'literal', value: level } as Level);
        if (l === null) {
          variants = [];
          break;
        }
        const options = Array.isArray(l) ? l : [l];
        variants = variants.flatMap((v) => options.map((o) => [...v, o]));
      }
      const openEnded = /\{\w+\}$/.test(ROUTES[key].template);
      for (const v of variants) rules.push({ levels: v, openEnded });
    }
  }
  return rules;
}

function matchesLevel(l: Level, value: string): boolean {
  if (l.kind === 'any') return true;
  if (l.kind === 'literal') return l.value === value;
  return l.re.test(value);
}

function ruleMatches(rule: Rule, levels: string[]): boolean {
  return (
    levels.length === rule.levels.length && rule.levels.every((l, i) => matchesLevel(l, levels[i] as string))
  );
}

/** The rule as an MQTT filter (a pattern level cannot be one: such a rule covers no subscription). */
function ruleFilter(rule: Rule): string | null {
  if (rule.levels.some((l) => l.kind === 'pattern')) return null;
  const levels = rule.levels.map((l) => (l.kind === 'literal' ? l.value : '+'));
  if (rule.openEnded && rule.levels.at(-1)?.kind === 'any') levels[levels.length - 1] = '#';
  return levels.join('/');
}

/** `<prefix>/<role>/<id>/#`: the account's own instance's topics. */
const ownNamespace = (user: Principal, prefix: string) =>
  under(prefix, `${user.role}/${user.id === '*' ? '+' : user.id}/#`);

/** What the account may subscribe to besides its grants (ROLE_SCOPES); null: anything. */
function readScope(user: Principal, prefix: string, ha: string): string[] | null {
  const { read } = ROLE_SCOPES[user.role];
  if (read === 'all') return null;
  if (read === 'bus') return [under(prefix, '#'), `${ha}/#`];
  return read === 'own' ? [ownNamespace(user, prefix)] : [];
}

/** A topic of some route: its grants decide, even inside the account's own namespace. */
const isRouteTopic = (topic: string, prefix: string, ha: string) =>
  ROUTE_KEYS.some((key) => parseTopic(key, topic, prefix, ha) !== null);

const ROUTE_KEYS = Object.keys(ROUTES) as RouteKey[];

/** Rules every publisher obeys, authenticated or not. */
export function checkPublishCommon(topic: string, retain: boolean, prefix = DEFAULT_TOPIC_PREFIX): Verdict {
  if (topic.length === 0) return refuse('empty topic');
  if (topic.includes('+') || topic.includes('#'))
    return refuse('wildcards are not allowed in a publish topic');
  if (topic.startsWith('$SYS')) return refuse('$SYS topics are reserved for the broker');
  if (retain && isCommandTopic(topic, prefix)) return refuse('retain is refused on command topics');
  return OK;
}

/**
 * A publish is allowed when a route of the topic map grants it to the account's role: its own
 * instance's topics, the controller's commands to relay nodes, automation's commands and Home
 * Assistant's birth, each account's own discovery config (`<ha>/device/outpost_<role>_<id>/config`).
 * A topic no route lists may be published by a service under its own `<role>/<id>/` (ROLE_SCOPES).
 */
export function canPublish(
  user: Principal,
  topic: string,
  retain: boolean,
  prefix = DEFAULT_TOPIC_PREFIX,
  ha = DEFAULT_HA_PREFIX,
): Verdict {
  const common = checkPublishCommon(topic, retain, prefix);
  if (!common.ok) return common;
  const levels = topic.split('/');
  if (rulesFor(user, 'publish', prefix, ha).some((r) => ruleMatches(r, levels))) return OK;
  // A Victron GX bridged to the site's broker publishes only while it hears this keep-alive.
  if (user.role === 'controller' && VICTRON_KEEPALIVE.test(topic)) return OK;
  if (
    ROLE_SCOPES[user.role].ownTopics &&
    filterMatches(ownNamespace(user, prefix), topic) &&
    !isRouteTopic(topic, prefix, ha)
  )
    return OK;
  return refuse(`role ${user.role} (id ${user.id}) may not publish to ${topic}`);
}

/**
 * MQTT_AUTOMATION_FEEDBACK: a site whose only feedback source is Home Assistant (one MQTT login) lets
 * `automation` publish the running feedback too. Off by default: that account can then stop a run.
 */
export function automationMayPublishFeedback(
  user: Principal,
  topic: string,
  retain: boolean,
  prefix = DEFAULT_TOPIC_PREFIX,
): Verdict {
  if (user.role !== 'automation') return refuse('not an automation account');
  const common = checkPublishCommon(topic, retain, prefix);
  if (!common.ok) return common;
  return parseTopic('controllerRunningFeedback', topic, prefix) !== null
    ? OK
    : refuse(`role ${user.role} may not publish to ${topic}`);
}

/**
 * Home Assistant's MQTT statestream (`mqtt_statestream` with `base_topic`): `automation` may publish
 * `<base>/<domain>/<object_id>/state` and nothing else beside its routes, so Home Assistant logged in with
 * that account can feed start conditions without being disconnected at its first state. The base must
 * not be under the services' prefix (the account could then write their topics); its attributes and
 * timestamps (`publish_attributes`, `publish_timestamps`) stay refused.
 */
export function automationMayPublishStatestream(
  user: Principal,
  topic: string,
  retain: boolean,
  base: string,
  prefix = DEFAULT_TOPIC_PREFIX,
): Verdict {
  if (user.role !== 'automation') return refuse('not an automation account');
  const common = checkPublishCommon(topic, retain, prefix);
  if (!common.ok) return common;
  if (statestreamBaseRefusal(base, prefix)) return refuse(`statestream base ${base} is refused`);
  if (!topic.startsWith(`${base}/`)) return refuse(`role ${user.role} may not publish to ${topic}`);
  const rest = topic.slice(base.length + 1).split('/');
  return rest.length === 3 && rest[2] === 'state' && rest.every((l) => l.length > 0)
    ? OK
    : refuse(`role ${user.role} may not publish to ${topic}`);
}

/** Why a statestream base cannot be granted (wildcards, or the services' own prefix), or null. */
export function statestreamBaseRefusal(base: string, prefix = DEFAULT_TOPIC_PREFIX): string | null {
  if (base.length === 0 || /[+#]/.test(base) || base.includes('\u0000') || /^\/|\/$/.test(base))
    return 'must be topic levels without wildcards';
  if (prefix && (base === prefix || base.startsWith(`${prefix}/`)))
    return `must not be under the services' prefix ${prefix}`;
  if (base.startsWith('$')) return 'must not be a $ topic';
  return null;
}

/** `<prefix>/<svc>/<id>/request/...` or `.../response/...`: what the two ends of a request say. */
function requestParts(topic: string, prefix: string): { svc: string; id: string } | null {
  const levels = topic.split('/');
  const base = prefix ? prefix.split('/').length : 0;
  if (prefix && levels.slice(0, base).join('/') !== prefix) return null;
  const kind = levels[base + 2];
  if (levels.length < base + 4 || (kind !== 'request' && kind !== 'response')) return null;
  return { svc: levels[base] ?? '', id: levels[base + 1] ?? '' };
}

/**
 * Request and response payloads carry secrets (a relay node's notifier URLs with their bot tokens):
 * only the two ends may read them, the controller and the service the topic names, whatever filter
 * they subscribed with. Read-only roles subscribed to `#` never receive them.
 */
export function canRead(user: Principal, topic: string, prefix = DEFAULT_TOPIC_PREFIX): boolean {
  const parts = requestParts(topic, prefix);
  if (!parts) return true;
  if (user.role === 'controller') return true;
  return parts.svc === user.role && (user.id === '*' || parts.id === user.id);
}

/** A filter that names request or response topics of others outright. */
function namesOthersRequests(user: Principal, filter: string, prefix: string): boolean {
  const parts = requestParts(filter, prefix);
  if (!parts) return false;
  if (user.role === 'controller') return false;
  const wild = (s: string) => s === '+' || s === '#';
  if (wild(parts.svc) || wild(parts.id)) return true;
  return !canRead(user, filter.replace(/[+#]/g, 'x'), prefix);
}

export function canSubscribe(
  user: Principal,
  filter: string,
  prefix = DEFAULT_TOPIC_PREFIX,
  ha = DEFAULT_HA_PREFIX,
): Verdict {
  if (filter.length === 0) return refuse('empty filter');
  if (namesOthersRequests(user, filter, prefix))
    return refuse(`role ${user.role} (id ${user.id}) may not read requests and responses of ${filter}`);
  const scope = readScope(user, prefix, ha);
  if (scope === null) return OK;
  // Start condition sources may be any single topic on the site's broker (a bridged Victron GX,
  // ESPHome, Node-RED): the controller may read one named topic anywhere, never a wildcard outside.
  if (user.role === 'controller' && !filter.includes('+') && !filter.includes('#')) return OK;
  // And find a bridged GX's portal id by the one value it keeps retained (its serial).
  if (user.role === 'controller' && filter === VICTRON_SERIAL) return OK;
  const granted = rulesFor(user, 'subscribe', prefix, ha).map(ruleFilter);
  if ([...scope, ...granted].some((allowed) => allowed !== null && filterCovers(allowed, filter))) return OK;
  return refuse(`role ${user.role} (id ${user.id}) may not subscribe to ${filter}`);
}

/**
 * Client ids beginning `outpost-` belong to the account they name: `outpost-<username>` or
 * `outpost-<username>-…`. The notifier's persistent session (and the events queued in it while it
 * restarts) can then be taken over by no other account, connected or not.
 */
export function canUseClientId(user: Principal, clientId: string): Verdict {
  if (!clientId.startsWith('outpost-')) return OK;
  const own = `outpost-${user.username}`;
  if (clientId === own || clientId.startsWith(`${own}-`)) return OK;
  return refuse(`client id ${clientId} is reserved for another account`);
}
