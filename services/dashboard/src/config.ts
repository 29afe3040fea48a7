import {
  baseEnvShape,
  envBool,
  envPort,
  type MapOptions,
  mapEnvShape,
  type MetricsAuth,
  metricsAuthFromEnv,
  parseConfig,
} from '@outpost/runtime';
import { z } from 'zod';
import { locateSites, parseSiteLocations, parseSites, type SiteSpec } from './domain/sites.js';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A comma-separated list of simulator ids (topic levels). */
const idList = z
  .string()
  .max(1_000_000)
  .transform((value, ctx) => {
    const ids: string[] = [];
    const seen = new Set<string>();
    for (const raw of value.split(',')) {
      const id = raw.trim();
      if (!id) continue;
      if (!ID.test(id)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${id.slice(0, 70)}" is not a simulator id (letters, digits, "_", "-")`,
        });
        return z.NEVER;
      }
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
    return ids;
  })
  .default([]);

const siteList = z
  .string()
  .max(100_000)
  .transform((value, ctx): SiteSpec[] => {
    try {
      return parseSites(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  })
  .default([]);

const siteLocations = z
  .string()
  .max(100_000)
  .transform((value, ctx) => {
    try {
      return parseSiteLocations(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  })
  .default(new Map());

export const dashboardEnvSchema = z.object({
  ...baseEnvShape,
  ...mapEnvShape,
  DASHBOARD_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PORT: envPort(8090),
  HOST: z.string().min(1).default('0.0.0.0'),
  EXPECTED_SIMULATORS: idList,
  /** Generator sites to show: `controller` or `controller:relaynode`, comma-separated. */
  EXPECTED_SITES: siteList,
  /** Where generator sites stand on the fleet map: `controller:lat:lon`, comma-separated. */
  SITE_LOCATIONS: siteLocations,
  /** Optional `user:password`; unset, the dashboard has no authentication, as its spec says. */
  DASHBOARD_AUTH: z
    .string()
    .max(400)
    .regex(/^[^:]+:.+$/, 'expected user:password')
    .optional(),
  /** `user:password` that shows the generator sites off loopback (the launcher generates one). */
  DASHBOARD_SITES_AUTH: z
    .string()
    .max(400)
    .regex(/^[^:]+:.+$/, 'expected user:password')
    .optional(),
  /** Show the generator sites (running, armed, relay, EPO) to anyone who can reach the dashboard. */
  DASHBOARD_PUBLIC_SITES: envBool(false),
  /** Publish the snapshot on dashboard/<id>/fleet (not retained); false for a broker account with viewer rights only. */
  DASHBOARD_PUBLISH: envBool(true),
  DASHBOARD_MAX_SIMULATORS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  DASHBOARD_MAX_WS_CLIENTS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /**
   * Browser origins besides the dashboard's own that may open /ws, comma-separated
   * (`https://grafana.lan:3000`); a page from any other site is refused at the upgrade.
   */
  ALLOWED_ORIGINS: z
    .string()
    .max(10_000)
    .transform((value, ctx) => {
      const origins: string[] = [];
      for (const raw of value.split(',')) {
        const item = raw.trim();
        if (!item) continue;
        let origin: string | null = null;
        try {
          const u = new URL(item);
          const bare = u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password;
          if ((u.protocol === 'http:' || u.protocol === 'https:') && bare) origin = u.origin;
        } catch {
          origin = null;
        }
        if (!origin) {
          ctx.addIssue({
            code: 'custom',
            message: `"${item.slice(0, 80)}" is not an origin (scheme://host[:port])`,
          });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    })
    .default([]),
});

export type DashboardEnv = z.infer<typeof dashboardEnvSchema>;

export interface DashboardConfig {
  port: number;
  host: string;
  mqttUrl: string;
  mqttUsername?: string | undefined;
  mqttPassword?: string | undefined;
  prefix: string;
  serviceId: string;
  logLevel: string;
  expectedSimulators: string[];
  expectedSites: SiteSpec[];
  auth: { username: string; password: string } | null;
  /** Who sees the generator sites beyond loopback (gateway/sites-access.ts). */
  sites: { public: boolean; auth: { username: string; password: string } | null };
  publish: boolean;
  maxSimulators: number;
  maxWsClients: number;
  /** ALLOWED_ORIGINS: other sites' pages that may open /ws. */
  allowedOrigins: string[];
  metricsAuth: MetricsAuth | null;
  /** MAP_PMTILES / MAP_TILES_URL. */
  map: MapOptions;
}

/** `user:password` as a login (the password may hold colons). */
const userPassword = (value: string | undefined) => {
  const colon = value?.indexOf(':') ?? -1;
  return value && colon > 0 ? { username: value.slice(0, colon), password: value.slice(colon + 1) } : null;
};

/** Reads the environment; throws ConfigError naming the first bad variable. */
export function parseDashboardConfig(env: NodeJS.ProcessEnv): DashboardConfig {
  const e = parseConfig(dashboardEnvSchema, env);
  return {
    port: e.DASHBOARD_PORT ?? e.PORT,
    host: e.HOST,
    mqttUrl: e.MQTT_URL ?? 'mqtt://127.0.0.1:1883',
    mqttUsername: e.MQTT_USERNAME,
    mqttPassword: e.MQTT_PASSWORD,
    prefix: e.MQTT_TOPIC_PREFIX,
    serviceId: e.SERVICE_ID,
    logLevel: e.LOG_LEVEL,
    expectedSimulators: e.EXPECTED_SIMULATORS,
    expectedSites: locateSites(e.EXPECTED_SITES, e.SITE_LOCATIONS),
    auth: userPassword(e.DASHBOARD_AUTH),
    sites: { public: e.DASHBOARD_PUBLIC_SITES, auth: userPassword(e.DASHBOARD_SITES_AUTH) },
    publish: e.DASHBOARD_PUBLISH,
    maxSimulators: e.DASHBOARD_MAX_SIMULATORS,
    maxWsClients: e.DASHBOARD_MAX_WS_CLIENTS,
    allowedOrigins: e.ALLOWED_ORIGINS,
    metricsAuth: metricsAuthFromEnv(e),
    map: { pmtiles: e.MAP_PMTILES, tilesUrl: e.MAP_TILES_URL },
  };
}
