/** Controller fuzzing: the in-process REST target and what a rejection must leave unchanged. */
import { sql } from 'drizzle-orm';
import type { FuzzRequest, FuzzResponse, RestTarget } from '@outpost/contracts/testing';
import type { Database } from '../../src/db/connection.js';
import type { TestApp } from '../helpers/app.js';

/** Fields that follow the clock rather than a request. */
const TIME_FIELDS = ['updated_at', 'runtime_seconds', 'cooldown_remaining_seconds'];

export async function generatorState(t: TestApp): Promise<Record<string, unknown>> {
  const res = await t.request('GET', '/api/generator/state');
  if (res.status !== 200) throw new Error(`GET /api/generator/state -> ${res.status}`);
  const state = { ...(res.body as Record<string, unknown>) };
  for (const f of TIME_FIELDS) delete state[f];
  return state;
}

type Rows<T> = { rows: T[] } | T[];
const rowsOf = <T>(r: Rows<T>): T[] => (Array.isArray(r) ? r : r.rows);

/**
 * The audit log's length and its newest entries (so a failure shows what was written). Failed logins
 * are audited on purpose although they are rejections: they are left out here and counted apart.
 */
export async function auditTail(database: Database): Promise<{ length: number; newest: string[] }> {
  const count = rowsOf(
    (await database.db.execute(
      sql.raw(`select count(*)::int as n from controller.audit_log where action <> 'auth.login_failed'`),
    )) as unknown as Rows<{
      n: number;
    }>,
  );
  const newest = rowsOf(
    (await database.db.execute(
      sql.raw(
        `select action, who, source from controller.audit_log where action <> 'auth.login_failed' order by id desc limit 3`,
      ),
    )) as unknown as Rows<{ action: string; who: string; source: string }>,
  );
  return {
    length: Number(count[0]?.n),
    newest: newest.map((r) => `${r.action} by ${r.who} from ${r.source}`),
  };
}

/** Generator state (less its clock fields) and the audit log length. */
export async function controllerSnapshot(t: TestApp, database: Database) {
  // Accepted commands may still be on their way to the database.
  for (let i = 0; i < 200 && t.svc.controller.pendingWrites > 0; i++)
    await new Promise((r) => setTimeout(r, 5));
  return { state: await generatorState(t), audit: await auditTail(database) };
}

/** The fuzzed relay node runs on mock hardware, without NetworkManager: its WiFi verbs answer 503. */
const NO_WIFI = {
  status: 503,
  detail: 'Relay node: WiFi management is not available (no system message bus)',
};

/** The gateway in-process (Hono's app.request), with the test's bearer token on every request. */
export function controllerTarget(t: TestApp, database: Database): RestTarget {
  return {
    async send(req: FuzzRequest): Promise<FuzzResponse> {
      const res = await t.app.request(req.path, {
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${t.token}` },
        body: req.body,
      });
      return { status: res.status, text: await res.text() };
    },
    snapshot: () => controllerSnapshot(t, database),
    allowed5xx: {
      'GET /api/relaynode/wifi': NO_WIFI,
      'GET /api/relaynode/wifi/scan': NO_WIFI,
      'POST /api/relaynode/wifi/add': NO_WIFI,
      'POST /api/relaynode/wifi/connect': NO_WIFI,
      'POST /api/relaynode/wifi/forget': NO_WIFI,
    },
    async afterAccept(req) {
      // Logging out revokes the token the fuzzer uses: take a new one so requests keep reaching validation.
      if (req.op === 'POST /api/auth/logout') await t.login();
    },
  };
}
