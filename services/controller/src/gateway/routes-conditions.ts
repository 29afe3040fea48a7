import { createRoute, z } from '@hono/zod-openapi';
import { conditions as C } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import type { ControllerService } from '../controller-service.js';
import { actorOf, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';

const tags = ['conditions'];
const NameParam = z.object({ name: C.SourceName });
const SamplesQuery = z
  .object({ source: C.SourceName, hours: z.coerce.number().int().min(1).max(6).default(6) })
  .strict();

const HIDDEN = '********';

/** What GET /api/conditions shows, as the OpenAPI document says it. */
const STATUS_DESCRIPTION = [
  'Each source: `value` (null unless fresh), `status` ok/stale/missing, `topic`, `updated_at` (the last',
  'reading or sign of life that confirmed the value: a Victron GX publishes only changes, and its',
  '`N/<portal>/heartbeat`, any `N/<portal>/…` message and `full_publish_completed` keep its values fresh;',
  'silence past `stale_after_seconds` is stale). A stale source raises the notification',
  '`condition_source_stale` (webhook `generator.condition.source_stale`); reporting again raises',
  '`condition_source_restored` (webhook `generator.condition.source_restored`).',
  '',
  'Each condition: `state` `off` (configured with `"enabled": false`: never starts or holds a run),',
  '`idle`, `start_pending`, `active`, `stop_pending` or `unknown` (no fresh value); `countdown_seconds` and',
  '`due_at` of a pending start or stop. `grid_present` is null when the grid source is stale, missing or',
  'has no value: `keep_off_while_grid` acts only on a grid known to be present, so an unknown grid neither',
  'refuses a condition start nor stops a condition run. `minimum_run_remaining_seconds`: seconds of',
  '`minimum_run_minutes` left on a run a condition started and still holds, null otherwise. Prometheus:',
  '`controller_condition_countdown_seconds{condition,pending}` with `pending` `start` or `stop`, absent',
  'when nothing is pending.',
].join('\n');

const CONFIG_DESCRIPTION = [
  'Stored first, then in force. A source whose settings changed loses its last value (`missing` until',
  'its next reading, silence counted from the save, its condition starts over, chart samples cleared);',
  'unchanged sources keep theirs, and each Victron GX in use is asked for all its values once.',
  '',
  'Refused with 422 naming the field, nothing changed: a `topic` or `base_topic` under the bus prefix',
  '(`MQTT_TOPIC_PREFIX`) unless its route names the controller as a reader; a `broker_url` at an address',
  '`OUTBOUND_ALLOWED_NETWORKS` refuses (also checked again at connect); a `victron_gx` source without',
  '`portal_id` when its broker has no GX publishing the retained `N/<portal>/system/0/Serial`, or several',
  '(listed); otherwise the one found is stored. `victron_gx` `scale` omitted is 1, or -1 for',
  '`battery_current` (Venus OS counts discharge negative); an explicit `scale` replaces that -1 and is not',
  'multiplied with it.',
  '',
  'Rules between fields, refused with 422 naming the field and stated in the schema: an enabled',
  'condition needs its source; the `high_temperature` and `overload` sources of type `victron_gx` need',
  "`vebus_instance`; `keep_off_while_grid` needs a `grid` source (the schema's `not`). The hysteresis,",
  'which JSON Schema cannot compare: the stop value lies strictly on the far side of the start value,',
  'above it for `soc` and `battery_voltage` and below it for the others, and so does `quiet_stop_value`',
  'from `quiet_start_value` when either is given, a null one counting as its ordinary value. Each',
  "condition's schema states this as `x-outpost-ordered`: pairs of fields whose `lower` side (the first",
  'of its fields that is not null) must be below the `higher` side.',
].join('\n');

/** A broker URL's password as GET shows it. */
const redact = (url: string | undefined) => url?.replace(/^([a-z]+:\/\/[^:/@]+:)[^@]*@/i, `$1${HIDDEN}@`);

function redacted(cfg: C.ConditionsConfig): C.ConditionsConfig {
  const sources = Object.fromEntries(
    Object.entries(cfg.sources).map(([name, src]) => [
      name,
      src && 'broker_url' in src && src.broker_url ? { ...src, broker_url: redact(src.broker_url) } : src,
    ]),
  );
  return { ...cfg, sources } as C.ConditionsConfig;
}

/** A PUT that sends back what GET showed keeps the stored password. */
function restorePasswords(next: C.ConditionsConfig, current: C.ConditionsConfig): C.ConditionsConfig {
  for (const name of C.SOURCE_NAMES) {
    const src = next.sources[name];
    const old = current.sources[name];
    if (!src || !old || !('broker_url' in src) || !('broker_url' in old) || !src.broker_url) continue;
    if (src.broker_url.includes(`:${HIDDEN}@`) && redact(old.broker_url) === src.broker_url)
      src.broker_url = old.broker_url;
  }
  return next;
}

/** /api/conditions: the start conditions' configuration, live values, states and countdowns. */
export function conditionsRoutes(svc: ControllerService, opts: { dev: boolean }) {
  const r = router();
  const conditions = svc.conditions;
  const overview = () => ({ ...conditions.status(), config: redacted(conditions.config) });

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/conditions',
      tags,
      summary:
        'Sources with their live values, each condition with its state and countdown, and the configuration',
      description: STATUS_DESCRIPTION,
      responses: { 200: json(C.ConditionsOverview), ...errorResponses([401]) },
    }),
    (c) => c.json(overview(), 200),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/conditions/config',
      tags,
      summary: 'The start conditions configuration (broker passwords hidden)',
      responses: { 200: json(C.ConditionsConfig), ...errorResponses([401]) },
    }),
    (c) => c.json(redacted(conditions.config), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/conditions/config',
      tags,
      summary:
        'Replace the start conditions configuration: sources, conditions, grid, minimum run, quiet hours',
      description: CONFIG_DESCRIPTION,
      request: body(C.ConditionsConfig),
      responses: { 200: json(C.ConditionsOverview), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      // Refused (422) before anything is stored: bus topics, refused brokers, a GX not found.
      const next = await conditions.prepare(restorePasswords(c.req.valid('json'), conditions.config));
      try {
        await conditions.update(next, actorOf(c));
      } catch (err) {
        svc.logger.error({ err }, 'start conditions not saved');
        throw new HttpError(503, 'The database is unavailable');
      }
      return c.json(overview(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/conditions/sources/{name}/value',
      tags,
      summary: 'A reading for a REST source (scaled by its scale); null says the source has no value now',
      request: { params: NameParam, ...body(C.SourceValueBody) },
      responses: { 200: json(C.ConditionsStatus), ...errorResponses([400, 401, 409, 422]) },
    }),
    async (c) => {
      const { name } = c.req.valid('param');
      if (!(await conditions.restValue(name, c.req.valid('json').value)))
        throw new HttpError(409, `Source ${name} is not a REST source`);
      return c.json(conditions.status(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/conditions/samples',
      tags,
      summary: "A source's readings over the last hours (at most one per 30 s, kept in memory) for the chart",
      request: { query: SamplesQuery },
      responses: { 200: json(C.SamplesResponse), ...errorResponses([401, 422]) },
    }),
    (c) => {
      const q = c.req.valid('query');
      return c.json({ source: q.source, samples: conditions.samples(q.source, q.hours) }, 200);
    },
  );

  if (opts.dev) {
    r.openapi(
      createRoute({
        method: 'post',
        path: '/api/dev/conditions/{name}',
        tags: ['development'],
        summary: 'Fake a reading of any configured source, as it would arrive (mock mode only)',
        request: { params: NameParam, ...body(C.SourceValueBody) },
        responses: { 200: json(C.ConditionsStatus), ...errorResponses([400, 401, 409, 422]) },
      }),
      async (c) => {
        const { name } = c.req.valid('param');
        if (!conditions.config.sources[name]) throw new HttpError(409, `Source ${name} is not configured`);
        await conditions.reading(name, c.req.valid('json').value);
        return c.json(conditions.status(), 200);
      },
    );
  }
  return r;
}
