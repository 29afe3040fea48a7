// The real processes behind the console test: embedded broker, relay node (mock HAT), controller (mock GPIO).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import { freePort, type ServiceProcess, startService } from '@outpost/ui/testing';
import { testDatabase } from '../helpers/databases.js';
import { LEASE_KEYS } from '../helpers/stack.js';

const CONTROLLER_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const RELAYNODE_MAIN = fileURLToPath(new URL('../../../relay-node/dist/main.js', import.meta.url));
const NOTIFIER_MAIN = fileURLToPath(new URL('../../../notifier/dist/main.js', import.meta.url));

export const ADMIN = 'operator';
export const PASSWORD = 'e2e console password';
const NODE_SECRET = 'e2e-relaynode-secret';
const JWT_SECRET = 'e2e-console-jwt-secret-0123456789';
const NOTIFIER_API_SECRET = 'e2e-console-notifier-key-0123456789abcdef';

export interface Stack {
  broker: RunningBroker;
  node: ServiceProcess;
  notifier: ServiceProcess;
  controller: ServiceProcess;
  /** The relay node's own mock view (its dev API), to check what the console claims. */
  nodeStatus(): Promise<{ relay_on: boolean; armed: boolean; physical_safety_engaged: boolean }>;
  /** Presses or releases the EPO button at the relay node (the controller has no endpoint for it). */
  setEpo(engaged: boolean): Promise<void>;
  /**
   * Stops the controller or the notifier and starts it again on the same port, database and data
   * folder, with `env` added to its environment (an administrator's edit followed by a restart).
   */
  restart(which: 'controller' | 'notifier', env: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/**
 * `controllerEnv` adds to or overrides the controller's environment (a shorter confirm window, say);
 * `nodeEnv` the relay node's (LOG_LEVEL=info to read what it logs at start).
 */
export async function startStack(
  controllerEnv: Record<string, string> = {},
  nodeEnv: Record<string, string> = {},
): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'controller-e2e-'));
  const broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  // One database for the controller's and the notifier's schemas.
  const tdb = await testDatabase();
  const started: ServiceProcess[] = [];
  try {
    const nodePort = await freePort();
    const node = await startService(
      RELAYNODE_MAIN,
      {
        RELAYNODE_API_SECRET: NODE_SECRET,
        CONTROLLER_PUBLIC_KEY: LEASE_KEYS.publicKey,
        MOCK_HAT_MODE: 'true',
        DEV_MODE: 'true',
        HARDWARE_SAFETY_ENABLED: 'true',
        MQTT_URL: broker.url,
        HOST: '127.0.0.1',
        PORT: String(nodePort),
        DATA_DIR: join(dir, 'node'),
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
        ...nodeEnv,
      },
      nodePort,
    );
    started.push(node);
    const notifierPort = await freePort();
    const notifierEnv: Record<string, string> = {
      NOTIFIER_PORT: String(notifierPort),
      HOST: '127.0.0.1',
      NOTIFIER_API_SECRET,
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      MQTT_URL: broker.url,
      DATA_DIR: join(dir, 'notifier'),
      DATABASE_URL: tdb.url,
      NOTIFIER_RETRY_DELAYS_SECONDS: '1',
    };
    const notifier = await startService(NOTIFIER_MAIN, notifierEnv, notifierPort);
    started.push(notifier);
    const ctlPort = await freePort();
    const controllerBaseEnv: Record<string, string> = {
      JWT_SECRET,
      NOTIFIER_URL: notifier.url,
      NOTIFIER_API_SECRET,
      // The test's webhook receiver is on loopback.
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      ADMIN_USERNAME: ADMIN,
      ADMIN_PASSWORD: PASSWORD,
      MQTT_URL: broker.url,
      RELAYNODE_API_SECRET: NODE_SECRET,
      LEASE_SIGNING_KEY: LEASE_KEYS.privateKey,
      GPIO_MODE: 'mock',
      DEV_MODE: 'true',
      HOA_BOOT_DELAY_SECONDS: '0',
      HEARTBEAT_INTERVAL_SECONDS: '1',
      HOST: '127.0.0.1',
      CONTROLLER_PORT: String(ctlPort),
      DATA_DIR: join(dir, 'controller'),
      DATABASE_URL: tdb.url,
      ...controllerEnv,
    };
    const controller = await startService(CONTROLLER_MAIN, controllerBaseEnv, ctlPort);
    started.push(controller);
    const nodeCall = (path: string, body?: unknown) =>
      fetch(`${node.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'X-API-Key': NODE_SECRET, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const services = {
      controller: { main: CONTROLLER_MAIN, env: controllerBaseEnv, port: ctlPort },
      notifier: { main: NOTIFIER_MAIN, env: notifierEnv, port: notifierPort },
    };
    const stack: Stack = {
      broker,
      node,
      notifier,
      controller,
      async nodeStatus() {
        return (await (await nodeCall('/api/dev/status')).json()) as Awaited<ReturnType<Stack['nodeStatus']>>;
      },
      async setEpo(engaged) {
        const res = await nodeCall('/api/dev/epo', { engaged });
        if (res.status !== 200) throw new Error(`relay node EPO call: ${res.status} ${await res.text()}`);
      },
      async restart(which, env) {
        const s = services[which];
        await stack[which].stop();
        const again = await startService(s.main, { ...s.env, ...env }, s.port);
        started[started.indexOf(stack[which])] = again;
        stack[which] = again;
      },
      async close() {
        for (const p of started.reverse()) await p.stop();
        await broker.close();
        await tdb.cleanup();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return stack;
  } catch (err) {
    for (const p of started.reverse()) await p.stop();
    await broker.close();
    await tdb.cleanup();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A bearer token for the console's admin, as the login form gets it. */
export async function adminToken(controllerUrl: string): Promise<string> {
  const login = await fetch(`${controllerUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN, password: PASSWORD }),
  });
  return ((await login.json()) as { access_token: string }).access_token;
}
