import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Secrets } from './secrets.js';

export interface ServiceDef {
  name: string;
  /** Environment variable for its port, and the port used when it is unset. */
  portEnv: string;
  defaultPort: number;
  mqttUser: string;
  /** Extra environment this service gets from the launcher's secrets. */
  env: (ctx: LaunchContext) => Record<string, string>;
}

export interface LaunchContext {
  secrets: Pick<
    Secrets,
    | 'JWT_SECRET'
    | 'RELAYNODE_API_SECRET'
    | 'NOTIFIER_API_SECRET'
    | 'ADMIN_PASSWORD'
    | 'SIMULATOR_USERNAME'
    | 'SIMULATOR_PASSWORD'
    | 'DASHBOARD_SITES_PASSWORD'
    | 'LEASE_SIGNING_KEY'
    | 'CONTROLLER_PUBLIC_KEY'
  >;
  adminUsername: string;
  ports: Record<string, number>;
  /** DATABASE_URL per data-owning service, when the launcher runs the embedded PostgreSQL. */
  databaseUrls?: Record<string, string>;
  host: string;
  /** The services serve HTTPS. */
  tls?: boolean;
}

const databaseUrl = (ctx: LaunchContext, name: string): Record<string, string> => {
  const url = ctx.databaseUrls?.[name];
  return url ? { DATABASE_URL: url } : {};
};

const localUrl = (ctx: LaunchContext, name: string) =>
  ctx.ports[name] !== undefined ? `${ctx.tls ? 'https' : 'http'}://127.0.0.1:${ctx.ports[name]}` : '';

/** Every service the launcher knows, in start order; only those that are built get started. */
export const SERVICES: ServiceDef[] = [
  {
    name: 'notifier',
    portEnv: 'NOTIFIER_PORT',
    defaultPort: 8002,
    mqttUser: 'notifier',
    env: (ctx) => ({ NOTIFIER_API_SECRET: ctx.secrets.NOTIFIER_API_SECRET, ...databaseUrl(ctx, 'notifier') }),
  },
  {
    name: 'relay-node',
    portEnv: 'RELAYNODE_PORT',
    defaultPort: 8001,
    mqttUser: 'relaynode',
    env: (ctx) => ({
      RELAYNODE_API_SECRET: ctx.secrets.RELAYNODE_API_SECRET,
      ...(ctx.secrets.CONTROLLER_PUBLIC_KEY
        ? { CONTROLLER_PUBLIC_KEY: ctx.secrets.CONTROLLER_PUBLIC_KEY }
        : {}),
    }),
  },
  {
    name: 'controller',
    portEnv: 'CONTROLLER_PORT',
    defaultPort: 8000,
    mqttUser: 'controller',
    env: (ctx) => ({
      JWT_SECRET: ctx.secrets.JWT_SECRET,
      RELAYNODE_API_SECRET: ctx.secrets.RELAYNODE_API_SECRET,
      ...(ctx.secrets.LEASE_SIGNING_KEY ? { LEASE_SIGNING_KEY: ctx.secrets.LEASE_SIGNING_KEY } : {}),
      ADMIN_USERNAME: ctx.adminUsername,
      // Absent once the controller has its first user (secrets.json keeps no clear password then).
      ...(ctx.secrets.ADMIN_PASSWORD ? { ADMIN_PASSWORD: ctx.secrets.ADMIN_PASSWORD } : {}),
      ...databaseUrl(ctx, 'controller'),
      NOTIFIER_URL: localUrl(ctx, 'notifier'),
      NOTIFIER_API_SECRET: ctx.secrets.NOTIFIER_API_SECRET,
      RELAYNODE_URL: localUrl(ctx, 'relay-node'),
    }),
  },
  {
    name: 'simulator',
    portEnv: 'SIMULATOR_PORT',
    defaultPort: 8080,
    mqttUser: 'simulator',
    // Its own login: the pair set as USERNAME/PASSWORD, else the admin's name with its own password.
    env: (ctx) => ({
      USERNAME: ctx.secrets.SIMULATOR_USERNAME ?? ctx.adminUsername,
      PASSWORD: ctx.secrets.SIMULATOR_PASSWORD ?? '',
    }),
  },
  {
    name: 'dashboard',
    portEnv: 'DASHBOARD_PORT',
    defaultPort: 8090,
    mqttUser: 'dashboard',
    // The sites' login: off loopback the generator sites are shown only with it.
    env: (ctx) => ({
      EXPECTED_SIMULATORS: process.env.EXPECTED_SIMULATORS ?? 'main',
      EXPECTED_SITES: process.env.EXPECTED_SITES ?? 'main',
      ...(ctx.secrets.DASHBOARD_SITES_PASSWORD
        ? { DASHBOARD_SITES_AUTH: `${DASHBOARD_SITES_USER}:${ctx.secrets.DASHBOARD_SITES_PASSWORD}` }
        : {}),
    }),
  },
];

/** The user name of the dashboard's sites login. */
export const DASHBOARD_SITES_USER = 'sites';

export function mainFile(root: string, name: string): string {
  return join(root, 'services', name, 'dist', 'main.js');
}

/** The services that exist in this checkout (built, with an entry point). */
export function availableServices(root: string): ServiceDef[] {
  return SERVICES.filter((s) => existsSync(mainFile(root, s.name)));
}
