// The command path's reference: the same start/stop cycles against bench/bare-command.mjs (node:http →
// one PostgreSQL write → QoS 1 publish) on the same broker, relay node, database and observer, once
// the controller has been measured and stopped. What is left between the two is the controller's own.
import { join } from 'node:path';
import { startCycles } from './cycles.mjs';
import { freePort, here, PREFIX, RELAYNODE_ID, startNode, stopChild, waitFor } from './stack.mjs';

/** Cycles against the bare pipeline, on the controller's database. */
export async function bareCycles(stack, watch) {
  // The controller's heartbeats would hold the relay node's lease; a new epoch takes it over once they stop.
  await stopChild(stack.processes.controller);
  const port = await freePort();
  const bare = startNode('bare pipeline', join(here, 'bare-command.mjs'), {
    BARE_PORT: String(port),
    BARE_DATABASE_URL: stack.databaseUrl,
    BARE_MQTT_URL: stack.mqttUrl,
    BARE_DESIRED_TOPIC: `${PREFIX}/relaynode/${RELAYNODE_ID}/desired`,
  });
  await waitFor('the bare pipeline', bare, () => bare.output.includes('bare command server up'));
  return startCycles({ ...stack, base: `http://127.0.0.1:${port}`, token: 'unused' }, watch);
}
