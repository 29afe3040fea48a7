import type { Principal } from './users.js';

export type Verdict = { ok: true } | { ok: false; reason: string };

export const DEFAULT_TOPIC_PREFIX = 'outpost';

const OK: Verdict = { ok: true };
const refuse = (reason: string): Verdict => ({ ok: false, reason });

/** True when `filter` (with + and #) matches the concrete `topic`. */
export function filterMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

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
    filterMatches(under(prefix, 'relaynode/+/desired'), topic) ||
    filterMatches(under(prefix, '+/+/request/#'), topic)
  );
}

interface Rules {
  publish: string[];
  /** null: any filter. */
  subscribe: string[] | null;
}

function rulesFor(user: Principal, prefix: string): Rules {
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
          'homeassistant/#',
        ],
        subscribe: [p('#'), 'homeassistant/#'],
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
        publish: [p(`simulator/${id}/#`), 'homeassistant/#'],
        subscribe: [p(`simulator/${id}/#`), 'homeassistant/status'],
      };
    case 'dashboard':
      return { publish: [p(`dashboard/${id}/#`)], subscribe: null };
    case 'automation':
      return { publish: [p('controller/+/set'), 'homeassistant/status'], subscribe: null };
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

export function canPublish(
  user: Principal,
  topic: string,
  retain: boolean,
  prefix = DEFAULT_TOPIC_PREFIX,
): Verdict {
  const common = checkPublishCommon(topic, retain, prefix);
  if (!common.ok) return common;
  const rules = rulesFor(user, prefix);
  if (rules.publish.some((f) => filterMatches(f, topic))) return OK;
  return refuse(`role ${user.role} (id ${user.id}) may not publish to ${topic}`);
}

export function canSubscribe(user: Principal, filter: string, prefix = DEFAULT_TOPIC_PREFIX): Verdict {
  if (filter.length === 0) return refuse('empty filter');
  const rules = rulesFor(user, prefix);
  if (rules.subscribe === null) return OK;
  if (rules.subscribe.some((allowed) => filterCovers(allowed, filter))) return OK;
  return refuse(`role ${user.role} (id ${user.id}) may not subscribe to ${filter}`);
}
