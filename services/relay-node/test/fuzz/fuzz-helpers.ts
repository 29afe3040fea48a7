/** Relay node fuzzing: the REST target of a running node and what a rejection must leave unchanged. */
import {
  type FuzzRequest,
  type FuzzResponse,
  type RestTarget,
  sendOnFreshConnection,
} from '@outpost/contracts/testing';
import { SECRET, type startTestNode } from '../service-helpers.js';

export type TestNode = Awaited<ReturnType<typeof startTestNode>>;

async function read(node: TestNode, path: string): Promise<Record<string, unknown>> {
  const res = await node.api('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status}`);
  return res.body;
}

/** Relay, failsafe, reboot schedule and notification settings, and the relay output pin itself. */
export async function nodeSnapshot(node: TestNode) {
  const { seconds_since_heartbeat: _age, ...failsafe } = await read(node, '/api/failsafe');
  return {
    relay: await read(node, '/api/relay/state'),
    failsafe,
    schedule: await read(node, '/api/relaynode/reboot-schedule'),
    notifications: await read(node, '/api/relaynode/notifications'),
    pin: node.io.level(node.config.relayPin),
  };
}

/** WiFi management needs NetworkManager on the system bus, which a mock-hardware node has not. */
const NO_WIFI = { status: 503, detail: 'WiFi management is not available (no system message bus)' };

/** The node's REST API over real HTTP with the X-API-Key of the controller. */
export function nodeTarget(node: TestNode): RestTarget {
  const withKey = (req: FuzzRequest) => ({ ...req, headers: { ...req.headers, 'x-api-key': SECRET } });
  return {
    async send(req: FuzzRequest): Promise<FuzzResponse> {
      const r = withKey(req);
      const res = await fetch(node.url + r.path, { method: r.method, headers: r.headers, body: r.body });
      return { status: res.status, text: await res.text() };
    },
    snapshot: () => nodeSnapshot(node),
    allowed5xx: {
      'GET /api/system/wifi/scan': NO_WIFI,
      'POST /api/system/wifi/add': NO_WIFI,
      'POST /api/system/wifi/connect': NO_WIFI,
    },
  };
}

/** The same target, one connection per request: for bodies over the limit. */
export function nodeLimitTarget(node: TestNode): RestTarget {
  return {
    ...nodeTarget(node),
    send: (req) =>
      sendOnFreshConnection(node.url, { ...req, headers: { ...req.headers, 'x-api-key': SECRET } }),
  };
}
