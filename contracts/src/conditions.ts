import { z } from 'zod';
import { UnixSeconds } from './common.js';
import { CONDITION_NAMES } from './names.js';
import { ORDERED_KEYWORD, type OrderedPair, unorderedPairs } from './ordered.js';

/**
 * Start conditions: measured values (state of charge, battery voltage and current, AC load and two
 * inverter warnings) that start and stop the generator, after Victron's GX "Generator start/stop".
 * A condition's name is also the run's trigger and, when it ends the run, the stop reason.
 */
export { CONDITION_NAMES };
export const ConditionName = z.enum(CONDITION_NAMES);
export type ConditionName = z.infer<typeof ConditionName>;

/** Every value source: one per condition, plus `grid` (present when its value is 1 / on / true). */
export const SOURCE_NAMES = [...CONDITION_NAMES, 'grid'] as const;
export const SourceName = z.enum(SOURCE_NAMES);
export type SourceName = z.infer<typeof SourceName>;

/**
 * Which way a condition starts: `below` starts when the value is at or under the start value and
 * stops at or over the stop value (state of charge, voltage); `above` the other way round (discharge
 * current, load, warnings).
 */
export const CONDITION_DIRECTION: Record<ConditionName, 'below' | 'above'> = {
  soc: 'below',
  battery_voltage: 'below',
  battery_current: 'above',
  ac_load: 'above',
  high_temperature: 'above',
  overload: 'above',
};

/** Units the values are shown in (after the source's scale). */
export const SOURCE_UNITS: Record<SourceName, string | null> = {
  soc: '%',
  battery_voltage: 'V',
  battery_current: 'A',
  ac_load: 'W',
  high_temperature: null,
  overload: null,
  grid: null,
};

/**
 * Another broker than the site's (a Victron GX's own, mqtt://<gx>:1883); credentials may ride in the
 * URL (shown redacted). Omitted: the site's broker.
 */
export const BrokerUrl = z
  .string()
  .max(500)
  .regex(/^(mqtts?|wss?):\/\/[^/\s]+/, 'an mqtt://, mqtts://, ws:// or wss:// URL')
  .optional();

/** A factor other than 0 (`not` tells a client what the refinement alone would not). */
const NonZero = z
  .number()
  .finite()
  .refine((v) => v !== 0, 'must not be 0')
  .meta({ not: { enum: [0] } });

const Seconds = (max: number) => z.number().int().min(0).max(max);
const StaleAfter = Seconds(86_400).min(1).default(300);
const Scale = NonZero.default(1);

/** A JSON path into the payload, dot-separated keys and array indexes (`value`, `data.0.soc`). */
export const JsonPath = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'dot-separated keys, e.g. "value" or "battery.soc"');

/**
 * An MQTT topic to subscribe to: no wildcards. A topic under the bus prefix (`MQTT_TOPIC_PREFIX`) is
 * refused on save (422) unless its route names the controller as a reader (topic-routes.ts,
 * sourceTopicInLane): the prefix is the services' own, not a source's.
 */
export const SourceTopic = z
  .string()
  .min(1)
  .max(256)
  // No wildcard and no NUL: a pattern, so the document says it too.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters a topic must not carry
  .regex(/^[^+#\u0000]*$/, 'no wildcards (+ #) in a source topic');

/** A plain MQTT topic: the payload is a number (or on/off/true/false), or JSON with a path to one. */
export const PlainSource = z
  .object({
    type: z.literal('mqtt'),
    broker_url: BrokerUrl,
    topic: SourceTopic,
    json_path: JsonPath.nullable().default(null),
    scale: Scale,
    stale_after_seconds: StaleAfter,
  })
  .strict();

/**
 * A Victron GX (Venus OS MQTT, dbus-flashmq): the topic follows from the portal id; payloads are
 * `{"value": x}`. The controller sends the keep-alive the GX needs. Without device instances the values
 * come from the GX's own system service (`system/0/…`: the battery monitor the GX selected, the total AC
 * consumption, the active AC input); an instance reads that one device instead. The GX publishes a
 * value only when it changes: its source stays fresh while the GX shows life (`N/<portal>/heartbeat`
 * every 3 s, any `N/<portal>/…` message, `full_publish_completed`), and goes stale after
 * `stale_after_seconds` of silence. `portal_id` omitted: found on save from the GX's retained
 * `N/<portal>/system/0/Serial` on that broker (422 when there is none, or several).
 */
export const VictronSource = z
  .object({
    type: z.literal('victron_gx'),
    broker_url: BrokerUrl,
    portal_id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9]+$/, 'the VRM portal id: letters and digits')
      .optional(),
    /** null: the GX's system service (system/0/Dc/Battery/…); a number: that battery monitor (battery/<n>/…). */
    battery_instance: z.number().int().min(0).max(9999).nullable().default(null),
    /**
     * null: the GX's system service for the AC load (total consumption) and the grid (active AC input);
     * a number: that inverter (vebus/<n>/…: output power, AC input connected). The two warnings exist only
     * on the inverter, so their sources need it.
     */
    vebus_instance: z.number().int().min(0).max(9999).nullable().default(null),
    /** Omitted: 1, except the battery current, where Venus OS counts discharge negative (-1). */
    scale: NonZero.optional(),
    stale_after_seconds: StaleAfter,
  })
  .strict();

/** Home Assistant's MQTT statestream: `<base_topic>/<domain>/<object_id>/state`, a plain payload. */
export const HaStatestreamSource = z
  .object({
    type: z.literal('ha_statestream'),
    broker_url: BrokerUrl,
    entity_id: z
      .string()
      .min(3)
      .max(200)
      .regex(/^[a-z0-9_]+\.[a-z0-9_]+$/, 'a Home Assistant entity id, e.g. sensor.battery_soc'),
    base_topic: SourceTopic.default('homeassistant'),
    scale: Scale,
    stale_after_seconds: StaleAfter,
  })
  .strict();

/** A value PUT to /api/conditions/sources/{name}/value. */
export const RestSource = z
  .object({
    type: z.literal('rest'),
    scale: Scale,
    stale_after_seconds: StaleAfter,
  })
  .strict();

export const SourceConfig = z.discriminatedUnion('type', [
  PlainSource,
  VictronSource,
  HaStatestreamSource,
  RestSource,
]);
export type SourceConfig = z.infer<typeof SourceConfig>;

const Threshold = z.number().finite().min(-1e6).max(1e6);

export const ConditionConfig = z
  .object({
    enabled: z.boolean().default(false),
    start_value: Threshold,
    /** Seconds the start value must hold before the generator starts. */
    start_delay_seconds: Seconds(86_400).default(0),
    stop_value: Threshold,
    stop_delay_seconds: Seconds(86_400).default(0),
    /** During quiet hours; null: the ordinary values. */
    quiet_start_value: Threshold.nullable().default(null),
    quiet_stop_value: Threshold.nullable().default(null),
  })
  .strict();
export type ConditionConfig = z.infer<typeof ConditionConfig>;

/**
 * The hysteresis as ordered pairs (ordered.ts): the stop value on the far side of the start value,
 * and in quiet hours the quiet values, each falling back to the ordinary one when null. `below`
 * conditions stop above their start value, `above` ones below it.
 */
const ORDINARY = { start: ['start_value'], stop: ['stop_value'] };
const QUIET = { start: ['quiet_start_value', 'start_value'], stop: ['quiet_stop_value', 'stop_value'] };
export const HYSTERESIS: Record<'below' | 'above', OrderedPair[]> = {
  below: [ORDINARY, QUIET].map((p) => ({ lower: p.start, higher: p.stop })),
  above: [ORDINARY, QUIET].map((p) => ({ lower: p.stop, higher: p.start })),
};

/** A condition as the document gives it under its name, with its direction's hysteresis. */
const NamedCondition = (name: ConditionName) =>
  ConditionConfig.meta({ [ORDERED_KEYWORD]: HYSTERESIS[CONDITION_DIRECTION[name]] }).optional();

/** The conditions by name, each optional. */
const Conditions = z
  .object({
    soc: NamedCondition('soc'),
    battery_voltage: NamedCondition('battery_voltage'),
    battery_current: NamedCondition('battery_current'),
    ac_load: NamedCondition('ac_load'),
    high_temperature: NamedCondition('high_temperature'),
    overload: NamedCondition('overload'),
  } satisfies Record<ConditionName, unknown>)
  .strict();

const HhMm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour');

export const QuietHours = z
  .object({ enabled: z.boolean().default(false), start: HhMm.default('22:00'), end: HhMm.default('07:00') })
  .strict();
export type QuietHours = z.infer<typeof QuietHours>;

/** `{ required: [key], properties: { key: schema } }`: the object has `key`, and it meets `schema`. */
const holds = (key: string, schema: object) => ({ required: [key], properties: { [key]: schema } });

/**
 * The configurations the refinement below refuses, as JSON Schema says them (the document's `not`):
 * an enabled condition without its source, an inverter warning read from a GX without the inverter's
 * instance (null or left out), keep_off_while_grid without a grid source.
 */
const REFUSED_SHAPES = [
  ...CONDITION_NAMES.map((name) => ({
    required: ['conditions'],
    properties: {
      conditions: holds(name, holds('enabled', { type: 'boolean', enum: [true] })),
      sources: { not: { required: [name] } },
    },
  })),
  ...(['high_temperature', 'overload'] as const).map((name) =>
    holds(
      'sources',
      holds(name, {
        required: ['type'],
        properties: {
          type: { type: 'string', enum: ['victron_gx'] },
          vebus_instance: { nullable: true, enum: [null] },
        },
      }),
    ),
  ),
  {
    required: ['keep_off_while_grid'],
    properties: {
      keep_off_while_grid: { type: 'boolean', enum: [true] },
      sources: { not: { required: ['grid'] } },
    },
  },
];

/** The whole configuration, GET and PUT /api/conditions/config. */
export const ConditionsConfig = z
  .object({
    conditions: Conditions.default({}),
    sources: z.partialRecord(SourceName, SourceConfig).default({}),
    /** Keep the generator off (and stop a run a condition started) while the grid source is present. */
    keep_off_while_grid: z.boolean().default(false),
    /** A run a condition started is not stopped by the conditions before this. */
    minimum_run_minutes: z.number().int().min(0).max(1440).default(0),
    quiet_hours: QuietHours.default({ enabled: false, start: '22:00', end: '07:00' }),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    for (const name of CONDITION_NAMES) {
      const c = cfg.conditions[name];
      if (!c) continue;
      const below = CONDITION_DIRECTION[name] === 'below';
      // The same pairs the document states: blamed on the stop value (ordinary or quiet) of the pair.
      for (const pair of unorderedPairs(c, HYSTERESIS[CONDITION_DIRECTION[name]])) {
        const field = (below ? pair.higher : pair.lower)[0] as string;
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', name, field],
          message: `must be ${below ? 'above' : 'below'} the start value (hysteresis)`,
        });
      }
      if (c.enabled && !cfg.sources[name]) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources', name],
          message: 'an enabled condition needs a source',
        });
      }
    }
    for (const name of ['high_temperature', 'overload'] as const) {
      const src = cfg.sources[name];
      if (src?.type === 'victron_gx' && src.vebus_instance === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources', name, 'vebus_instance'],
          message: "the inverter's warnings are read from the inverter: give its VRM instance",
        });
      }
    }
    if (cfg.keep_off_while_grid && !cfg.sources.grid) {
      ctx.addIssue({
        code: 'custom',
        path: ['sources', 'grid'],
        message: 'keep_off_while_grid needs a grid source',
      });
    }
  })
  .meta({ not: { anyOf: REFUSED_SHAPES } });
export type ConditionsConfig = z.infer<typeof ConditionsConfig>;
export type ConditionsConfigInput = z.input<typeof ConditionsConfig>;

/** PUT /api/conditions/sources/{name}/value (a REST source), and the dev mode's fake of any source. */
export const SourceValueBody = z.object({ value: z.number().finite().nullable() }).strict();

export const SOURCE_STATUSES = ['ok', 'stale', 'missing'] as const;
export const SourceLive = z.object({
  name: SourceName,
  type: z.enum(['mqtt', 'victron_gx', 'ha_statestream', 'rest']),
  /** The topic it listens to; null for a REST source. */
  topic: z.string().nullable(),
  value: z.number().nullable(),
  unit: z.string().nullable(),
  status: z.enum(SOURCE_STATUSES),
  updated_at: UnixSeconds.nullable(),
});
export type SourceLive = z.infer<typeof SourceLive>;

export const CONDITION_STATES = [
  'off',
  'idle',
  'start_pending',
  'active',
  'stop_pending',
  'unknown',
] as const;
export const ConditionLive = z.object({
  name: ConditionName,
  enabled: z.boolean(),
  /** idle: neither threshold holds; active: the condition holds the run (or asks for one). */
  state: z.enum(CONDITION_STATES),
  value: z.number().nullable(),
  /** The thresholds in force now (quiet hours or not). */
  start_value: z.number(),
  stop_value: z.number(),
  /** Seconds until a pending start or stop, null when none is pending. */
  countdown_seconds: z.number().int().nonnegative().nullable(),
  /** When the pending start or stop happens if nothing changes (Unix seconds). */
  due_at: UnixSeconds.nullable(),
});
export type ConditionLive = z.infer<typeof ConditionLive>;

/** GET /api/conditions, and `conditions` in the controller's retained state. */
export const ConditionsStatus = z.object({
  quiet_hours_active: z.boolean(),
  grid_present: z.boolean().nullable(),
  /** The run a condition started and still holds, or null. */
  holding_run: z.boolean(),
  /** Seconds of the minimum run time left, null when none applies. */
  minimum_run_remaining_seconds: z.number().int().nonnegative().nullable(),
  sources: z.array(SourceLive),
  conditions: z.array(ConditionLive),
});
export type ConditionsStatus = z.infer<typeof ConditionsStatus>;

export const ConditionsOverview = ConditionsStatus.extend({ config: ConditionsConfig });

/** One sample of GET /api/conditions/samples (the console chart). */
export const SourceSample = z.object({ at: UnixSeconds, value: z.number().nullable() });
export const SamplesResponse = z.object({
  source: SourceName,
  samples: z.array(SourceSample),
});
