import { BUS_ROLES, type BusRole, type Grant, ROUTES } from '@outpost/contracts/topic-routes';
import { describe, expect, it } from 'vitest';
import { canPublish, canSubscribe } from '../src/acl.js';
import type { Principal } from '../src/users.js';

/**
 * The topic map is the ACL: every route's publishers and readers get exactly what it says, on the
 * instance they act for, and a role the route does not name is refused even on its own instance.
 */

const KEYS = Object.keys(ROUTES) as (keyof typeof ROUTES)[];
const account = (role: BusRole): Principal => ({ username: role, role, id: 'main' });

/** A grant's pinned value for this account; free parameters take `free`. */
function value(grant: Grant | undefined, param: string, role: BusRole, free: string): string {
  const v = grant?.params?.[param];
  if (v === undefined) return free;
  const one = typeof v === 'string' ? v : (v[0] as string);
  return one.replaceAll('{id}', 'main').replaceAll('{role}', role).replaceAll('{username}', role);
}

/** The route's topic as `role` would use it: its own instance, or what the grant pins. */
function topicAs(key: (typeof KEYS)[number], role: BusRole, grant: Grant | undefined, free: string): string {
  const { template, prefixed } = ROUTES[key];
  const filled = template.replace(/\{(\w+)\}/g, (_, p: string) => {
    if (grant) return value(grant, p, role, free);
    // Not granted: the strongest case, the account's own instance of the route.
    if (p === 'svc') return role;
    if (p === 'id') return key === 'haDiscovery' ? `outpost_${role}_main` : 'main';
    if (p === 'account') return role;
    return free === '+' ? '+' : 'x';
  });
  return prefixed ? `outpost/${filled}` : filled;
}

describe('the broker ACL follows the topic map', () => {
  for (const key of KEYS) {
    const route = ROUTES[key];
    it(`${key}: its publishers may publish it, every other role is refused`, () => {
      for (const role of BUS_ROLES) {
        const grant = route.publish.find((g) => g.role === role);
        const topic = topicAs(key, role, grant, 'x');
        const verdict = canPublish(account(role), topic, route.retain, 'outpost');
        expect(verdict.ok, `${role} → ${topic}`).toBe(grant !== undefined);
      }
    });

    it(`${key}: the roles that read it may subscribe to it`, () => {
      for (const grant of route.subscribe) {
        const filter = topicAs(key, grant.role, grant, '+');
        expect(canSubscribe(account(grant.role), filter, 'outpost').ok, `${grant.role} ← ${filter}`).toBe(
          true,
        );
      }
    });
  }

  it('a relay node reads only what its routes grant, and its own instance of them', () => {
    const node = account('relaynode');
    const granted = KEYS.filter((k) => ROUTES[k].subscribe.some((g) => g.role === 'relaynode'));
    expect(granted.sort()).toEqual(['availability', 'controllerState', 'relaynodeDesired', 'request']);
    expect(canSubscribe(node, 'outpost/relaynode/main/desired', 'outpost').ok).toBe(true);
    expect(canSubscribe(node, 'outpost/relaynode/other/desired', 'outpost').ok).toBe(false);
    expect(canSubscribe(node, 'outpost/simulator/+/position', 'outpost').ok).toBe(false);
  });
});
