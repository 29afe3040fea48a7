import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { filterMatches } from '@outpost/contracts/topic-filter';
import type { Principal } from './users.js';

export type Verdict = { ok: true } | { ok: false; reason: string };

/** The services' topic prefix, so a broker started without MQTT_TOPIC_PREFIX guards the topics they use. */
export const DEFAULT_TOPIC_PREFIX = DEFAULT_PREFIX;
/** Home Assistant's discovery prefix (HA_DISCOVERY_PREFIX). */
export const DEFAULT_HA_PREFIX = 'homeassistant';

const OK: Verdict = { ok: true };
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
 * subscriber (a relay node coming back online), so the broker refuses retain on them for everyone.
 */
export function isCommandTopic(topic: string, prefix = DEFAULT_TOPIC_PREFIX): boolean {
  if (topic === 'set' || topic.endsWith('/set')) return true;
  return (
    filterMatches(under(prefix, 'controller/+/set/+'), topic) ||
    filterMatches(under(prefix, 'relaynode/+/desired'), topic) ||
    filterMatches(under(prefix, '+/+/request/#'), topic)
  );
}

interface Rules {
  publish: string[];
  /** null: any filter. */
  subscribe: string[] | null;
}

/** A username that can stand in a topic level as itself (no wildcard, separator or control character). */
const TOPIC_SAFE = /^[A-Za-z0-9_.-]{1,64}$/;

function rulesFor(user: Principal, prefix: string, ha: string): Rules {
  const p = (rel: string) => under(prefix, rel);
  const id = user.id === '*' ? '+' : user.id;
  switch (user.role) {
    case 'controller':
      return {
        publish: [
          p(`controller/${id}/#`),
          p('relaynode/+/desired'),
          p('relaynode/+/request/#'),
          p('notifier/+/request/#'),
        ],
        subscribe: [p('#'), `${ha}/#`],
      };
    case 'relaynode':
      return {
        publish: [
          p(`relaynode/${id}/state`),
          p(`relaynode/${id}/availability`),
          p(`relaynode/${id}/event/#`),
          p(`relaynode/${id}/response/#`),
        ],
        // Read-only view of the controller so the node can tell "controller gone" from "told off".
        subscribe: [
          p(`relaynode/${id}/desired`),
          p(`relaynode/${id}/request/#`),
          p('controller/+/state'),
          p('controller/+/availability'),
        ],
      };
    case 'notifier':
      return { publish: [p(`notifier/${id}/#`)], subscribe: null };
    case 'simulator':
      return {
        publish: [p(`simulator/${id}/#`)],
        subscribe: [p(`simulator/${id}/#`), `${ha}/status`],
      };
    case 'dashboard':
      return { publish: [p(`dashboard/${id}/#`)], subscribe: null };
    case 'automation':
      return {
        publish: [
          p('controller/+/set'),
          // Its own command topic: the controller names the account from the last level.
          ...(TOPIC_SAFE.test(user.username) ? [p(`controller/+/set/${user.username}`)] : []),
          // Whether the generator really runs, from an AC sense, a smart plug or an energy meter: a
          // retained state, not a command, so it is not under set/.
          p('controller/+/running_feedback'),
          `${ha}/status`,
        ],
        subscribe: null,
      };
    case 'viewer':
      return { publish: [], subscribe: null };
  }
}

/** Rules every publisher obeys, authenticated or not. */
export function checkPublishCommon(topic: string, retain: boolean, prefix = DEFAULT_TOPIC_PREFIX): Verdict {
  if (topic.length === 0) return refuse('empty topic');
  if (topic.includes('+') || topic.includes('#'))
    return refuse('wildcards are not allowed in a publish topic');
  if (topic.startsWith('$SYS')) return refuse('$SYS topics are reserved for the broker');
  if (retain && isCommandTopic(topic, prefix)) return refuse('retain is refused on command topics');
  return OK;
}

/** The roles that announce a Home Assistant device, and the object id their device has. */
const DISCOVERING_ROLES = new Set(['controller', 'simulator']);

/**
 * `<ha>/device/outpost_<role>_<id>/config` for the user's own role and id: each account announces its own
 * device only, and cannot overwrite another's (a simulator replacing the controller's switches).
 */
function isOwnDiscovery(user: Principal, topic: string, ha: string): boolean {
  if (!DISCOVERING_ROLES.has(user.role)) return false;
  const head = `${ha}/device/outpost_${user.role}_`;
  if (!topic.startsWith(head) || !topic.endsWith('/config')) return false;
  const id = topic.slice(head.length, -'/config'.length);
  if (id.length === 0 || id.includes('/')) return false;
  return user.id === '*' || id === user.id;
}

export function canPublish(
  user: Principal,
  topic: string,
  retain: boolean,
  prefix = DEFAULT_TOPIC_PREFIX,
  ha = DEFAULT_HA_PREFIX,
): Verdict {
  const common = checkPublishCommon(topic, retain, prefix);
  if (!common.ok) return common;
  const rules = rulesFor(user, prefix, ha);
  if (rules.publish.some((f) => filterMatches(f, topic))) return OK;
  if (isOwnDiscovery(user, topic, ha)) return OK;
  return refuse(`role ${user.role} (id ${user.id}) may not publish to ${topic}`);
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
  const rules = rulesFor(user, prefix, ha);
  if (rules.subscribe === null) return OK;
  if (rules.subscribe.some((allowed) => filterCovers(allowed, filter))) return OK;
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
