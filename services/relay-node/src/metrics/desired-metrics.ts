import { Counter, type Registry } from 'prom-client';
import type { RelayNode } from '../domain/relay-node.js';

/**
 * Relay commands (desired states, over MQTT or the REST heartbeat) by how the lease judged them:
 * `fresh` ones are executed, `stale` and `expired` ones only ever turn the relay off.
 */
export function countDesiredStates(node: RelayNode, registry: Registry): Counter<'source' | 'verdict'> {
  const counter = new Counter({
    name: 'relaynode_desired_states_total',
    help: 'Desired states (relay commands) received, by source and lease verdict',
    labelNames: ['source', 'verdict'] as const,
    registers: [registry],
  });
  const handle = node.handleDesired.bind(node);
  node.handleDesired = (msg, source) => {
    const out = handle(msg, source);
    counter.inc({ source, verdict: out.verdict });
    return out;
  };
  return counter;
}
