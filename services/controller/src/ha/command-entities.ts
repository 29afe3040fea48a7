import { type generator, OVERRIDE_TYPES } from '@outpost/contracts';

export const onOff = (field: string) => `{{ 'ON' if value_json.${field} else 'OFF' }}`;
const cmd = (payload: Record<string, unknown>) => JSON.stringify(payload);

type Cmps = Record<string, Record<string, unknown>>;

/** A component reduced to its platform: how device discovery removes an entity it offered before. */
const removed = (p: string) => ({ p });

/**
 * The entities that send commands, each offered only when its command is allowed, so Home Assistant
 * never shows a control its account is refused. Keys stay the same whatever the setting, so a change
 * of AUTOMATION_COMMANDS removes what is no longer allowed at the next start.
 */
export function commandEntities(o: {
  uid: string;
  set: string;
  fromState: { state_topic: string };
  withRelaynode: Record<string, unknown>;
  allowed: ReadonlySet<generator.AutomationCommand>;
}): Record<'generator' | 'armed' | 'override' | 'clearLockout', Cmps> {
  const { uid, allowed } = o;
  const button = (key: string, name: string, icon: string, payload: Record<string, unknown>, extra = {}) => ({
    p: 'button',
    name,
    unique_id: `${uid}_${key}`,
    icon,
    command_topic: o.set,
    payload_press: cmd(payload),
    ...extra,
  });
  const toggle = (
    on: generator.AutomationCommand,
    off: generator.AutomationCommand,
    entity: { key: string; name: string; icon: string; field: string; deviceClass?: string },
    buttons: Record<
      'on' | 'off',
      { key: string; name: string; icon: string; extra?: Record<string, unknown> }
    >,
    switchExtra: Record<string, unknown> = {},
  ): Cmps => {
    const both = allowed.has(on) && allowed.has(off);
    return {
      [entity.key]: both
        ? {
            p: 'switch',
            name: entity.name,
            unique_id: `${uid}_${entity.key}`,
            icon: entity.icon,
            ...o.fromState,
            value_template: onOff(entity.field),
            state_on: 'ON',
            state_off: 'OFF',
            command_topic: o.set,
            payload_on: cmd({ command: on }),
            payload_off: cmd({ command: off }),
            optimistic: false,
            ...switchExtra,
          }
        : removed('switch'),
      // Without the switch, the state stays visible read-only.
      [`${entity.key}_state`]: both
        ? removed('binary_sensor')
        : {
            p: 'binary_sensor',
            name: entity.name,
            unique_id: `${uid}_${entity.key}_state`,
            icon: entity.icon,
            ...(entity.deviceClass ? { device_class: entity.deviceClass } : {}),
            ...o.fromState,
            value_template: onOff(entity.field),
          },
      [buttons.on.key]:
        allowed.has(on) && !both
          ? button(buttons.on.key, buttons.on.name, buttons.on.icon, { command: on }, buttons.on.extra)
          : removed('button'),
      [buttons.off.key]:
        allowed.has(off) && !both
          ? button(buttons.off.key, buttons.off.name, buttons.off.icon, { command: off }, buttons.off.extra)
          : removed('button'),
    };
  };

  const generatorCmps = toggle(
    'start',
    'stop',
    { key: 'generator', name: 'Generator', icon: 'mdi:engine', field: 'running', deviceClass: 'running' },
    {
      on: { key: 'start_generator', name: 'Start generator', icon: 'mdi:play', extra: o.withRelaynode },
      off: { key: 'stop_generator', name: 'Stop generator', icon: 'mdi:stop' },
    },
    o.withRelaynode,
  );
  // The running binary sensor already shows the generator's state.
  delete generatorCmps.generator_state;

  const armed = toggle(
    'arm',
    'disarm',
    { key: 'armed', name: 'Armed', icon: 'mdi:shield-check', field: 'armed' },
    {
      on: { key: 'arm', name: 'Arm', icon: 'mdi:shield-check' },
      off: { key: 'disarm', name: 'Disarm', icon: 'mdi:shield-off' },
    },
  );

  // The select sets any override or none, so it needs all three; otherwise one button per allowed one.
  const OVERRIDE_BUTTONS = {
    override_force_run: {
      name: 'Force run',
      icon: 'mdi:play-circle',
      payload: { override_type: 'force_run' },
    },
    override_force_stop: {
      name: 'Force stop',
      icon: 'mdi:stop-circle',
      payload: { override_type: 'force_stop' },
    },
    override_disable: { name: 'Clear override', icon: 'mdi:close-circle', payload: { override_type: null } },
  } as const;
  const overrideCommands = Object.keys(OVERRIDE_BUTTONS) as (keyof typeof OVERRIDE_BUTTONS)[];
  const select = overrideCommands.every((c) => allowed.has(c));
  const override: Cmps = {
    override: select
      ? {
          p: 'select',
          name: 'Override',
          unique_id: `${uid}_override`,
          icon: 'mdi:hand-back-right',
          options: ['none', ...OVERRIDE_TYPES],
          ...o.fromState,
          value_template: "{{ value_json.override if value_json.override else 'none' }}",
          command_topic: o.set,
          command_template:
            "{{ {'command': 'override', 'override_type': (none if value == 'none' else value)} | to_json }}",
          optimistic: false,
        }
      : removed('select'),
    override_state: select
      ? removed('sensor')
      : {
          p: 'sensor',
          name: 'Override',
          unique_id: `${uid}_override_state`,
          icon: 'mdi:hand-back-right',
          device_class: 'enum',
          options: ['none', ...OVERRIDE_TYPES],
          ...o.fromState,
          value_template: "{{ value_json.override if value_json.override else 'none' }}",
        },
  };
  for (const c of overrideCommands) {
    const b = OVERRIDE_BUTTONS[c];
    override[c] =
      allowed.has(c) && !select
        ? button(c, b.name, b.icon, { command: 'override', ...b.payload })
        : removed('button');
  }

  const clearLockout: Cmps = {
    clear_lockout: allowed.has('clear_lockout')
      ? button(
          'clear_lockout',
          'Clear lockout',
          'mdi:lock-reset',
          // Pressing it is the acknowledgement the REST call asks for in its body.
          { command: 'clear_lockout', acknowledge: true },
          { entity_category: 'config' },
        )
      : removed('button'),
  };
  return { generator: generatorCmps, armed, override, clearLockout };
}
