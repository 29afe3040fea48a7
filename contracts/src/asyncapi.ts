/**
 * The AsyncAPI 3 document of the bus, built from the one topic map (topic-routes.ts + topics.ts): every
 * route becomes a channel with its payload's JSON Schema (from the zod schema), its QoS and retain flag,
 * and who publishes and who reads it. `npm run gen:asyncapi` writes it to contracts/asyncapi.json; the
 * dashboard serves that file. Nothing here runs in a service: it is a subpath of its own.
 */
import { z } from 'zod';
import { DEFAULT_PREFIX } from './prefix.js';
import { DeviceDiscovery } from './homeassistant.js';
import { type Grant, ROLE_SCOPES, type RouteKey, ROUTES } from './topic-routes.js';
import { TOPICS } from './topics.js';

type Json = Record<string, unknown>;

/** One line per route: what it carries. A route without one fails the typecheck. */
const DESCRIPTIONS: Record<RouteKey, string> = {
  availability:
    'Birth and last will of every service: `online` when it connects, `offline` when it stops, and the broker publishes `offline` (its last will, QoS 1, retained) when the connection dies.',
  controllerState:
    "The generator's authoritative state: running, armed, trigger, override, lockout, relay node and EPO. Retained, published on every change.",
  controllerStats:
    "Run-time figures Home Assistant's sensors read: current runtime, total run hours, fuel used, engine hours. Retained.",
  controllerEvent:
    'Notification and webhook events of the controller (`generator_started`, `fail_to_start`, …), `{name}` being the event. The notifier turns them into messages.',
  controllerSet:
    "Commands to the controller, through the same gates as its REST API. The automation account (Home Assistant) sends only what the controller's AUTOMATION_COMMANDS allows; a refused command is logged and changes nothing. Never retained.",
  controllerSetAs:
    "The same commands on the sending account's own topic: `{account}` must be the MQTT username, and the controller's audit records it as `mqtt:<account>`.",
  controllerRunningFeedback:
    'Whether the engine runs, from a sensor outside Outpost (a Home Assistant entity, a smart plug, an energy meter): `on`/`off`, `true`/`false` or `1`/`0`. Retained state, not a command.',
  relaynodeDesired:
    "The controller's heartbeat lease to a relay node: the relay turns ON only from an unexpired, newer (epoch, seq), armed lease; OFF is always obeyed. Without one for 3 × heartbeat_interval the relay node drops the relay.",
  relaynodeState: 'What the relay node reports: relay, failsafe, EPO, the last heartbeat. Retained.',
  relaynodeEvent:
    "The relay node's own events (EPO, failsafe), beside the controller's. Reserved: nothing publishes them yet.",
  relaynodeGenset:
    "The generator's own controller (a DSE module over GenComm Modbus) as the relay node reads it: mode, engine state, instruments, run time, alarms. Retained; published only where the node has GENSET_TRANSPORT set. Every value is null while unknown, and `stale` with the `genset_unreachable` warning once the module has not answered for the stale time: silence never means stopped.",
  request:
    'The controller asks a relay node or the notifier (`{svc}`) to do `{verb}`; the answer comes on the matching response topic with the same `transaction`. Delivered to the two ends only: it may carry secrets.',
  response: 'The answer to a request, with its `transaction`. Delivered to the controller only.',
  simulatorPosition:
    "A simulator's current position, at its update rate (QoS 0: a lost fix is replaced by the next).",
  simulatorRunning: 'Whether a simulator emits positions. Retained.',
  simulatorHeartbeat: "A simulator's periodic sign of life with its outputs' counters (QoS 0).",
  dashboardFleet: "The dashboard's fleet snapshot, the same object as its GET /api/status (QoS 0, 1 Hz).",
  haDiscovery:
    "Home Assistant device-based discovery: each announcing service's device with its entities, retained. `{id}` is `outpost_<role>_<instance>`; an empty payload removes the device. The prefix `homeassistant` follows HA_DISCOVERY_PREFIX.",
  haStatus:
    "Home Assistant's birth message: on `online` the controller and the simulators publish their discovery again.",
};

const PARAMETERS: Record<string, string> = {
  id: 'The instance id of the service (CONTROLLER_ID, RELAYNODE_ID, SIMULATOR_ID, …; default `main`).',
  svc: 'The service role: `controller`, `relaynode`, `notifier`, `simulator` or `dashboard`.',
  name: 'The event name.',
  verb: 'What the request asks for.',
  account: 'The MQTT username of the sending account.',
};

/** Topics an outside client sends: their schemas are what the receiver accepts (zod input). */
const INBOUND = new Set<RouteKey>([
  'controllerSet',
  'controllerSetAs',
  'controllerRunningFeedback',
  'haStatus',
]);

/** Payload schemas that say more than the topic map's own (which accepts any object on discovery). */
const PAYLOAD_OVERRIDES: Partial<Record<RouteKey, z.ZodType>> = {
  haDiscovery: z.union([DeviceDiscovery, z.literal('')]),
};

const pascal = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

function grantText(g: Grant): string {
  const pins = Object.entries(g.params ?? {}).map(
    ([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : (v as string)}`,
  );
  return pins.length ? `${g.role} (${pins.join(', ')})` : g.role;
}

function address(key: RouteKey): string {
  const r = ROUTES[key];
  return r.prefixed ? `${DEFAULT_PREFIX}/${r.template}` : r.template;
}

/** JSON Schemas of every payload, by schema name, in AsyncAPI's JSON Schema draft 07 dialect. */
function payloadSchemas(): Record<string, Json> {
  const build = (io: 'input' | 'output') => {
    const registry = z.registry<{ id: string }>();
    for (const key of Object.keys(TOPICS) as RouteKey[]) {
      if (INBOUND.has(key) !== (io === 'input')) continue;
      registry.add(PAYLOAD_OVERRIDES[key] ?? TOPICS[key].schema, { id: `${pascal(key)}Payload` });
    }
    return z.toJSONSchema(registry, {
      target: 'draft-7',
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    }).schemas as Record<string, Json>;
  };
  const all: Record<string, Json> = { ...build('output'), ...build('input') };
  for (const schema of Object.values(all)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
}

export interface AsyncApiOptions {
  /** The document's version: the release's. */
  version: string;
}

/** The whole document. Deterministic: the same contracts give the same JSON. */
export function buildAsyncApi(opts: AsyncApiOptions): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const key of Object.keys(ROUTES) as RouteKey[]) {
    const r = ROUTES[key];
    const params = [...r.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    messages[key] = {
      name: key,
      title: address(key),
      contentType: r.raw ? 'text/plain' : 'application/json',
      payload: { $ref: `#/components/schemas/${pascal(key)}Payload` },
    };
    channels[key] = {
      address: address(key),
      description: DESCRIPTIONS[key],
      ...(params.length
        ? { parameters: Object.fromEntries(params.map((p) => [p, { description: PARAMETERS[p] ?? p }])) }
        : {}),
      messages: { [key]: { $ref: `#/components/messages/${key}` } },
      'x-outpost-retain': r.retain,
      'x-outpost-qos': r.qos,
      'x-outpost-command': r.command,
    };
    const binding = { mqtt: { qos: r.qos, retain: r.retain, bindingVersion: '0.2.0' } };
    const ref = {
      channel: { $ref: `#/channels/${key}` },
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
    };
    operations[`${key}.publish`] = {
      action: 'send',
      title: `Publish ${address(key)}`,
      summary: `Published by: ${r.publish.map(grantText).join('; ') || 'nobody yet'}.`,
      ...ref,
      bindings: binding,
      'x-outpost-publishers': r.publish,
    };
    operations[`${key}.subscribe`] = {
      action: 'receive',
      title: `Subscribe ${address(key)}`,
      summary: `Read by: ${r.subscribe.map(grantText).join('; ') || 'no service'}; besides, the roles whose read scope covers it (components.x-outpost-role-scopes).`,
      ...ref,
      bindings: binding,
      'x-outpost-subscribers': r.subscribe,
    };
  }
  const lastWill = {
    topic: `${DEFAULT_PREFIX}/{svc}/{id}/availability`,
    qos: 1,
    message: 'offline',
    retain: true,
  };
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Outpost MQTT bus',
      version: opts.version,
      description: [
        'Every topic of the Outpost bus, generated from the contracts package (`npm run gen:asyncapi`).',
        '',
        '- Addresses start with the default `MQTT_TOPIC_PREFIX`, `outpost`; Home Assistant topics start with `HA_DISCOVERY_PREFIX`, `homeassistant`.',
        '- Payloads are JSON unless the message says `text/plain`. Timestamps named `updated_at` are Unix seconds, `*_ms`, `issued_at` and `expires_at` milliseconds.',
        '- Each service connects with its own account and a last will of `offline` on its availability topic (server bindings). Home Assistant logs in as `automation`, read-only tools as `viewer`.',
        '- Command topics (`set`, `desired`, `request`) are never retained; the broker refuses a retained publish there.',
        "- The broker enforces the publishers and subscribers listed on each operation (`x-outpost-publishers`, `x-outpost-subscribers`: role and pinned topic levels, `{id}` meaning the account's own instance).",
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      embedded: {
        host: 'localhost:1883',
        protocol: 'mqtt',
        description:
          'The embedded broker of `npm start` (MQTT_PORT); with TLS on, 1883 listens on loopback only.',
        security: [{ $ref: '#/components/securitySchemes/account' }],
        bindings: { mqtt: { cleanSession: true, keepAlive: 60, lastWill, bindingVersion: '0.2.0' } },
      },
      embeddedTls: {
        host: 'localhost:8883',
        protocol: 'secure-mqtt',
        description:
          'The embedded broker over TLS (MQTT_TLS_PORT), certificate from the site CA in DATA_DIR/tls/ca.pem.',
        security: [{ $ref: '#/components/securitySchemes/account' }],
        bindings: { mqtt: { cleanSession: true, keepAlive: 60, lastWill, bindingVersion: '0.2.0' } },
      },
      embeddedWebSocket: {
        host: 'localhost:9001',
        protocol: 'ws',
        description: 'MQTT over WebSocket (MQTT_WS_PORT); WSS on 8884 with TLS.',
        security: [{ $ref: '#/components/securitySchemes/account' }],
      },
    },
    channels,
    operations,
    components: {
      schemas: payloadSchemas(),
      messages,
      securitySchemes: {
        account: {
          type: 'userPassword',
          description:
            'One broker account per service, plus `automation` (Home Assistant) and `viewer` (read-only); passwords in DATA_DIR/secrets.json.',
        },
      },
      'x-outpost-role-scopes': ROLE_SCOPES,
    },
  };
}
