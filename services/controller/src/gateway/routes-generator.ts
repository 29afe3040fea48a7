import { createRoute, z } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import type { RelayDelivery } from '../domain/controller-core.js';
import { estimateFuel } from '../domain/fuel.js';
import { cooldownRemainingSeconds } from '../domain/limits.js';
import type { ControllerService } from '../controller-service.js';
import { actorOf, domain, errorResponses, router, sec } from './context.js';
import { body, json } from './openapi.js';
import { stateJson } from './state-json.js';

const tags = ['generator'];

/** What the caller is told about the relay: started only once the relay node confirmed it. */
function startMessage(relay: RelayDelivery, confirmed: boolean, intervalSeconds: number): string {
  if (confirmed) return 'Generator started';
  if (relay === 'broker') {
    return `Generator start recorded; relay ON sent, not yet confirmed by the relay node. The state shows relay_confirmed_at when it is; otherwise relay_not_confirmed is raised ${2 * intervalSeconds + 5} s after the start and the run ends (comm_loss) ${3 * intervalSeconds} s after it.`;
  }
  const lease = `within ${3 * intervalSeconds} s of the start`;
  if (relay === 'rest') {
    return `Generator start recorded; relay not yet confirmed: the MQTT broker is unreachable, so the relay ON was sent over the relay node REST API. The run continues only if the broker is back ${lease}; otherwise the relay node drops the relay and the run ends (comm_loss).`;
  }
  return `Generator start recorded; relay not yet confirmed: the relay node link (MQTT broker) is unreachable. The first heartbeat after it reconnects turns the relay ON, if that is ${lease}; otherwise the relay stays OFF and the run ends (comm_loss).`;
}

export function generatorRoutes(svc: ControllerService) {
  const r = router();
  const ctl = svc.controller;

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/state',
      tags,
      responses: { 200: json(generator.GeneratorState), ...errorResponses([401]) },
    }),
    // A fresh header object: the server adds Content-Length to the one it is given.
    (c) => c.body(stateJson(ctl), 200, { 'content-type': 'application/json' }) as never,
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/generator/start',
      tags,
      summary:
        'Manual start; optional duration_minutes schedules an auto-stop. relay_confirmed is true once the relay node reported the relay ON (the answer waits up to 2 s for it); otherwise the start is recorded and pending. Refused (409) while the generator’s own controller (read over Modbus by the relay node) is in Stop or holds a shutdown alarm; in Manual the message ends with a warning',
      request: body(generator.StartRequest, false),
      responses: { 200: json(generator.StartResponse), ...errorResponses([400, 401, 409, 422, 503]) },
    }),
    async (c) => {
      const req = c.req.valid('json');
      const out = await domain(() =>
        ctl.start({
          trigger: 'manual',
          actor: actorOf(c),
          duration_minutes: req.duration_minutes,
          notes: req.notes,
        }),
      );
      // With a relay node link the answer waits briefly for the node's own report of the relay ON;
      // without one (a harness relay) the broker taking the command is all there is to say.
      // A start whose ON left by a deferred route (broker down) cannot be confirmed in a moment.
      const confirmed = svc.config.relayConfirms
        ? out.relay === 'broker' && (await ctl.waitRelayConfirmed(svc.config.startConfirmWaitMs ?? 0))
        : out.relay === 'broker';
      return c.json(
        {
          success: true as const,
          run_id: out.run_id,
          start_time: Math.floor(out.start_time / 1000),
          trigger: out.trigger,
          scheduled_stop_at: sec(out.scheduled_stop_at),
          message: withWarning(
            startMessage(out.relay, confirmed, svc.config.heartbeatIntervalSeconds),
            ctl.genset.startWarning(),
          ),
          relay_confirmed: confirmed,
          relay_status: confirmed ? ('confirmed' as const) : ('pending' as const),
        },
        200,
      );
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/generator/stop',
      tags,
      summary:
        'Stop; always allowed, armed or not, and the relay is commanded OFF even when the database is down',
      request: body(generator.StopRequest, false),
      responses: { 200: json(generator.StopResponse), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const req = c.req.valid('json');
      const out = await domain(() => ctl.stop('manual', actorOf(c), req.reason ?? null));
      return c.json(
        {
          success: true as const,
          run_id: out.run_id,
          duration_seconds: out.duration_seconds,
          stop_reason: out.stop_reason,
          message: out.was_running ? 'Generator stopped' : 'Generator was not running; relay OFF re-sent',
        },
        200,
      );
    },
  );

  for (const action of ['arm', 'disarm'] as const) {
    r.openapi(
      createRoute({
        method: 'post',
        path: `/api/generator/${action}`,
        tags,
        responses: { 200: json(generator.ActionResponse), ...errorResponses([401, 503]) },
      }),
      async (c) => {
        const state = await domain(() => (action === 'arm' ? ctl.arm(actorOf(c)) : ctl.disarm(actorOf(c))));
        return c.json(
          {
            success: true,
            armed: state.slave_relay_armed,
            message: action === 'arm' ? 'Relay armed' : 'Relay disarmed',
          },
          200,
        );
      },
    );
  }

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/history',
      tags,
      request: { query: generator.HistoryQuery },
      responses: {
        200: {
          ...json(generator.HistoryResponse),
          headers: z.object({
            [generator.HISTORY_TOTAL_HEADER]: z.string().openapi({
              description: 'How many runs match trigger_type in all, beyond limit',
            }),
          }),
        },
        ...errorResponses([401, 422]),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const { runs, total } = await svc.runs.history(q.limit, q.trigger_type);
      c.header(generator.HISTORY_TOTAL_HEADER, String(total));
      return c.json(runs as z.infer<typeof generator.HistoryResponse>, 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/stats',
      tags,
      request: { query: generator.StatsQuery },
      responses: { 200: json(generator.StatsResponse), ...errorResponses([401, 422]) },
    }),
    async (c) => c.json(await svc.runs.stats(c.req.valid('query').days, svc.clock.now()), 200),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/fuel-usage',
      tags,
      summary: 'Fuel used since the last reset (completed runs plus the current run so far)',
      responses: {
        200: json(generator.FuelUsageResponse.extend({ current_run_gallons: z.number() })),
        ...errorResponses([401]),
      },
    }),
    async (c) => {
      const state = ctl.persisted;
      const done = await svc.runs.fuelSince(state.fuel_reset_at);
      const view = ctl.view();
      const current = view.running ? estimateFuel(view.runtime_seconds, ctl.currentRunRate) : 0;
      return c.json(
        {
          total_gallons: Math.round((done.gallons + current) * 1000) / 1000,
          total_runtime_seconds: done.seconds + (view.running ? view.runtime_seconds : 0),
          runs: done.runs,
          since: sec(state.fuel_reset_at),
          current_run_gallons: current,
          settings: ctl.currentSettings.fuel,
        },
        200,
      );
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/generator/fuel-usage/reset',
      tags,
      responses: { 200: json(generator.ActionResponse), ...errorResponses([401, 503]) },
    }),
    async (c) => {
      const at = await domain(() => ctl.resetFuel(actorOf(c)));
      return c.json({ success: true, since: Math.floor(at / 1000), message: 'Fuel usage reset' }, 200);
    },
  );

  const limitsStatus = () => {
    const s = ctl.persisted;
    const now = svc.clock.now();
    const remaining = cooldownRemainingSeconds(s, now);
    return {
      ...ctl.currentSettings.limits,
      lockout_active: s.lockout_active,
      cooldown_active: remaining > 0,
      cooldown_remaining_seconds: remaining,
    };
  };

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/runtime-limits',
      tags,
      responses: { 200: json(generator.RuntimeLimitsResponse), ...errorResponses([401]) },
    }),
    (c) => c.json(limitsStatus(), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/generator/runtime-limits',
      tags,
      request: body(generator.RuntimeLimitSettingsUpdate),
      responses: { 200: json(generator.RuntimeLimitsResponse), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      const patch = c.req.valid('json');
      await domain(() => ctl.updateSettings({ limits: patch }, actorOf(c)));
      return c.json(limitsStatus(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/generator/clear-lockout',
      tags,
      request: body(generator.ClearLockoutRequest),
      responses: { 200: json(generator.ActionResponse), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      if (!c.req.valid('json').acknowledge)
        throw new HttpError(422, 'acknowledge: must be true to clear the lockout');
      const out = await domain(() => ctl.clearLockout(actorOf(c)));
      return c.json(
        {
          success: true,
          cleared: out.cleared,
          message: out.cleared ? 'Lockout cleared' : 'No lockout was active',
        },
        200,
      );
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/generator/fuel-settings',
      tags,
      responses: { 200: json(generator.FuelSettings), ...errorResponses([401]) },
    }),
    (c) => c.json(ctl.currentSettings.fuel, 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/generator/fuel-settings',
      tags,
      request: body(generator.FuelSettingsUpdate),
      responses: { 200: json(generator.FuelSettings), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      const patch = c.req.valid('json');
      const next = await domain(() => ctl.updateSettings({ fuel: patch }, actorOf(c)));
      return c.json(next.fuel, 200);
    },
  );

  const settingsView = () => ({
    boot_arming_policy: ctl.currentSettings.boot_arming_policy,
    boot_arming_policy_from_env: svc.config.bootArmingPolicy ?? null,
    bms_debounce_ms: ctl.currentSettings.bms_debounce_ms,
  });
  const SettingsView = z.object({
    boot_arming_policy: z.string(),
    boot_arming_policy_from_env: z.string().nullable(),
    bms_debounce_ms: z.number().int(),
  });

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/settings',
      tags: ['settings'],
      responses: { 200: json(SettingsView), ...errorResponses([401]) },
    }),
    (c) => c.json(settingsView(), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/settings',
      tags: ['settings'],
      summary:
        'boot_arming_policy (BOOT_ARMING_POLICY in the environment wins) and the input-signal debounce',
      request: body(generator.ControllerSettings),
      responses: { 200: json(SettingsView), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      const patch = c.req.valid('json');
      await domain(() => ctl.updateSettings(patch, actorOf(c)));
      return c.json(settingsView(), 200);
    },
  );

  return r;
}

/** A start the generator's own controller may not act on (its mode selector in Manual) says so. */
function withWarning(message: string, warning: string | null): string {
  return warning === null ? message : `${message.replace(/\.?$/, '.')} Warning: ${warning}.`;
}
