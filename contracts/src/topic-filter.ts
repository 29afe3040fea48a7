/**
 * MQTT topic-filter matching. Its own module so the broker's ACL can use it without loading the schemas.
 */

/** True when an MQTT filter (with + and #) matches a topic. */
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
