import { describe, expect, it } from 'vitest';
import {
  automationMayPublishFeedback,
  automationMayPublishStatestream,
  statestreamBaseRefusal,
  canPublish,
  canSubscribe,
  filterCovers,
  isCommandTopic,
} from '../src/acl.js';
import type { Principal } from '../src/users.js';

const as = (role: Principal['role'], id: string): Principal => ({ username: role, role, id });
const pub = (p: Principal, topic: string, retain = false) => canPublish(p, topic, retain, 'outpost').ok;
const sub = (p: Principal, filter: string) => canSubscribe(p, filter, 'outpost').ok;

describe('acl: publish', () => {
  it('lets a relay node publish only under its own id', () => {
    const node = as('relaynode', 'a');
    expect(pub(node, 'outpost/relaynode/a/state', true)).toBe(true);
    expect(pub(node, 'outpost/relaynode/a/availability', true)).toBe(true);
    expect(pub(node, 'outpost/relaynode/a/event/epo')).toBe(true);
    expect(pub(node, 'outpost/relaynode/a/response/status')).toBe(true);
    expect(pub(node, 'outpost/relaynode/b/state')).toBe(false);
    expect(pub(node, 'outpost/relaynode/a/desired')).toBe(false);
    expect(pub(node, 'outpost/relaynode/a/request/status')).toBe(false);
    expect(pub(node, 'outpost/controller/main/set')).toBe(false);
  });

  it('gives only the controller the desired and request topics', () => {
    const ctl = as('controller', 'main');
    expect(pub(ctl, 'outpost/relaynode/a/desired')).toBe(true);
    expect(pub(ctl, 'outpost/relaynode/a/request/reboot')).toBe(true);
    expect(pub(ctl, 'outpost/notifier/main/request/test')).toBe(true);
    expect(pub(ctl, 'outpost/controller/main/state', true)).toBe(true);
    expect(pub(ctl, 'homeassistant/device/outpost_controller_main/config', true)).toBe(true);
    expect(pub(ctl, 'homeassistant/device/outpost_controller_other/config', true)).toBe(false);
    expect(pub(ctl, 'homeassistant/device/outpost_simulator_main/config', true)).toBe(false);
    expect(pub(ctl, 'homeassistant/status')).toBe(false);
    expect(pub(ctl, 'outpost/controller/other/state')).toBe(false);
    expect(pub(ctl, 'outpost/simulator/s/position')).toBe(false);
    for (const role of ['notifier', 'simulator', 'dashboard', 'automation', 'viewer'] as const) {
      expect(pub(as(role, role === 'simulator' ? 's' : '*'), 'outpost/relaynode/a/desired')).toBe(false);
    }
  });

  it('lets the controller keep a bridged Victron GX publishing and read its start-condition sources', () => {
    const ctl = as('controller', 'main');
    expect(pub(ctl, 'R/c0619ab1c2d3/keepalive')).toBe(true);
    expect(pub(ctl, 'R/c0619ab1c2d3/settings/0/Settings')).toBe(false);
    expect(pub(ctl, 'W/c0619ab1c2d3/vebus/276/Mode')).toBe(false);
    expect(pub(as('viewer', '*'), 'R/c0619ab1c2d3/keepalive')).toBe(false);
    expect(sub(ctl, 'N/c0619ab1c2d3/battery/512/Soc')).toBe(true);
    expect(sub(ctl, 'esphome/jk-bms/sensor/soc/state')).toBe(true);
  });

  it('lets automation publish only controller set commands and the HA birth', () => {
    const ha = as('automation', '*');
    expect(pub(ha, 'outpost/controller/main/set')).toBe(true);
    expect(pub(ha, 'outpost/controller/main/set/automation')).toBe(true);
    expect(pub(ha, 'outpost/controller/main/set/someone-else')).toBe(false);
    expect(pub(ha, 'outpost/controller/main/set/automation', true)).toBe(false);
    expect(pub(ha, 'homeassistant/status', true)).toBe(true);
    // The running feedback can stop a run: not automation's unless MQTT_AUTOMATION_FEEDBACK says so.
    expect(pub(ha, 'outpost/controller/main/running_feedback', true)).toBe(false);
    expect(pub(ha, 'outpost/controller/main/state')).toBe(false);
    expect(pub(ha, 'outpost/relaynode/a/desired')).toBe(false);
  });

  it('gives the running feedback to the feedback role alone, and that role nothing else', () => {
    const fb = as('feedback', '*');
    // A state: retained, so the controller reads it again after a restart.
    expect(pub(fb, 'outpost/controller/main/running_feedback', true)).toBe(true);
    expect(pub(fb, 'outpost/controller/north/running_feedback', true)).toBe(true);
    expect(pub(fb, 'outpost/controller/main/running_feedback/x')).toBe(false);
    expect(pub(fb, 'outpost/controller/main/set')).toBe(false);
    expect(pub(fb, 'outpost/controller/main/state')).toBe(false);
    expect(pub(fb, 'homeassistant/status')).toBe(false);
    expect(sub(fb, 'outpost/#')).toBe(false);
    for (const role of ['automation', 'viewer', 'notifier', 'dashboard'] as const)
      expect(pub(as(role, '*'), 'outpost/controller/main/running_feedback'), role).toBe(false);
    expect(pub(as('simulator', 's'), 'outpost/controller/main/running_feedback')).toBe(false);
  });

  it('MQTT_AUTOMATION_FEEDBACK lets automation publish the running feedback and nothing more', () => {
    const ha = as('automation', '*');
    const fb = (p: Principal, topic: string, retain = false) =>
      automationMayPublishFeedback(p, topic, retain, 'outpost').ok;
    expect(fb(ha, 'outpost/controller/main/running_feedback', true)).toBe(true);
    expect(fb(ha, 'outpost/controller/main/state', true)).toBe(false);
    expect(fb(ha, 'outpost/relaynode/main/desired')).toBe(false);
    expect(fb(as('viewer', '*'), 'outpost/controller/main/running_feedback')).toBe(false);
  });

  it("lets automation publish Home Assistant's statestream states and nothing beside them", () => {
    const ha = as('automation', '*');
    const st = (p: Principal, topic: string, base = 'homeassistant') =>
      automationMayPublishStatestream(p, topic, true, base, 'outpost').ok;
    expect(st(ha, 'homeassistant/sensor/jk_bms_soc/state')).toBe(true);
    expect(st(ha, 'homeassistant/binary_sensor/shore_power/state')).toBe(true);
    expect(st(ha, 'site/ha/sensor/soc/state', 'site/ha')).toBe(true);
    // Attributes and timestamps, other levels, another base, another role.
    expect(st(ha, 'homeassistant/sensor/jk_bms_soc/unit_of_measurement')).toBe(false);
    expect(st(ha, 'homeassistant/sensor/jk_bms_soc/last_updated')).toBe(false);
    expect(st(ha, 'homeassistant/sensor/state')).toBe(false);
    expect(st(ha, 'homeassistant/a/b/c/state')).toBe(false);
    expect(st(ha, 'other/sensor/soc/state')).toBe(false);
    expect(st(as('viewer', '*'), 'homeassistant/sensor/soc/state')).toBe(false);
    expect(st(as('simulator', 's'), 'homeassistant/sensor/soc/state')).toBe(false);
    // A base under the services' prefix would let the account write their topics.
    expect(st(ha, 'outpost/controller/main/state', 'outpost')).toBe(false);
    expect(statestreamBaseRefusal('outpost/ha', 'outpost')).toContain('prefix');
    expect(statestreamBaseRefusal('home/#', 'outpost')).not.toBeNull();
    expect(statestreamBaseRefusal('homeassistant', 'outpost')).toBeNull();
    // Without the grant the account's routes alone still refuse it.
    expect(pub(ha, 'homeassistant/sensor/jk_bms_soc/state')).toBe(false);
  });

  it("lets the controller find a GX's portal id by its retained serial, and no other wildcard outside", () => {
    expect(sub(as('controller', 'main'), 'N/+/system/0/Serial')).toBe(true);
    expect(sub(as('controller', 'main'), 'N/+/system/0/Dc/Battery/Soc')).toBe(false);
    expect(sub(as('controller', 'main'), 'N/#')).toBe(false);
    expect(sub(as('simulator', 's'), 'N/+/system/0/Serial')).toBe(false);
  });

  it('lets a viewer publish nothing', () => {
    const v = as('viewer', '*');
    expect(pub(v, 'outpost/dashboard/main/fleet')).toBe(false);
    expect(pub(v, 'homeassistant/status')).toBe(false);
  });

  it('scopes simulator, dashboard and notifier to their own ids, "*" meaning any', () => {
    expect(pub(as('simulator', 's1'), 'outpost/simulator/s1/position')).toBe(true);
    expect(pub(as('simulator', 's1'), 'homeassistant/device/outpost_simulator_s1/config', true)).toBe(true);
    expect(pub(as('simulator', 's1'), 'homeassistant/device/outpost_simulator_s2/config', true)).toBe(false);
    expect(pub(as('simulator', 's1'), 'homeassistant/device/outpost_controller_main/config')).toBe(false);
    expect(pub(as('simulator', 's1'), 'homeassistant/light/x/config')).toBe(false);
    expect(pub(as('simulator', 's1'), 'outpost/simulator/s2/position')).toBe(false);
    expect(pub(as('dashboard', 'main'), 'outpost/dashboard/main/fleet', true)).toBe(true);
    expect(pub(as('dashboard', 'main'), 'outpost/dashboard/x/fleet')).toBe(false);
    expect(pub(as('notifier', '*'), 'outpost/notifier/any/availability', true)).toBe(true);
  });

  it('refuses retain on set, desired and request topics for everyone', () => {
    const ctl = as('controller', '*');
    expect(canPublish(ctl, 'outpost/relaynode/a/desired', true)).toEqual({
      ok: false,
      reason: 'retain is refused on command topics',
    });
    expect(pub(ctl, 'outpost/relaynode/a/request/reboot', true)).toBe(false);
    expect(pub(ctl, 'outpost/controller/main/set', true)).toBe(false);
    expect(pub(as('automation', '*'), 'outpost/controller/main/set', true)).toBe(false);
    expect(isCommandTopic('outpost/controller/main/state')).toBe(false);
    expect(isCommandTopic('outpost/relaynode/a/response/x')).toBe(false);
  });

  it('refuses $SYS and wildcards in publish topics', () => {
    const ctl = as('controller', '*');
    expect(pub(ctl, '$SYS/broker/uptime')).toBe(false);
    expect(pub(ctl, 'outpost/controller/+/state')).toBe(false);
    expect(pub(ctl, 'outpost/controller/main/#')).toBe(false);
  });

  it('follows HA_DISCOVERY_PREFIX', () => {
    const sim = as('simulator', 's1');
    expect(canPublish(sim, 'ha2/device/outpost_simulator_s1/config', true, 'outpost', 'ha2').ok).toBe(true);
    expect(
      canPublish(sim, 'homeassistant/device/outpost_simulator_s1/config', true, 'outpost', 'ha2').ok,
    ).toBe(false);
    expect(canSubscribe(sim, 'ha2/status', 'outpost', 'ha2').ok).toBe(true);
    expect(canPublish(as('automation', '*'), 'ha2/status', false, 'outpost', 'ha2').ok).toBe(true);
  });

  it('follows the topic prefix', () => {
    const node = as('relaynode', 'a');
    expect(canPublish(node, 'site1/relaynode/a/state', false, 'site1').ok).toBe(true);
    expect(canPublish(node, 'outpost/relaynode/a/state', false, 'site1').ok).toBe(false);
  });
});

describe('acl: subscribe', () => {
  it('lets a relay node read its own commands and the controller state, nothing else', () => {
    const node = as('relaynode', 'a');
    expect(sub(node, 'outpost/relaynode/a/desired')).toBe(true);
    expect(sub(node, 'outpost/relaynode/a/request/#')).toBe(true);
    expect(sub(node, 'outpost/relaynode/a/request/reboot')).toBe(true);
    expect(sub(node, 'outpost/controller/+/state')).toBe(true);
    expect(sub(node, 'outpost/controller/main/state')).toBe(true);
    expect(sub(node, 'outpost/relaynode/+/desired')).toBe(false);
    expect(sub(node, 'outpost/relaynode/b/desired')).toBe(false);
    expect(sub(node, 'outpost/#')).toBe(false);
    expect(sub(node, '#')).toBe(false);
    expect(sub(node, 'outpost/controller/#')).toBe(false);
  });

  it('keeps the controller under the prefix and homeassistant', () => {
    const ctl = as('controller', 'main');
    expect(sub(ctl, 'outpost/#')).toBe(true);
    expect(sub(ctl, 'outpost/relaynode/+/state')).toBe(true);
    expect(sub(ctl, 'homeassistant/status')).toBe(true);
    expect(sub(ctl, '#')).toBe(false);
    expect(sub(ctl, 'other/#')).toBe(false);
    expect(sub(ctl, 'N/+/battery/512/Soc')).toBe(false);
  });

  it('lets viewers, automation, dashboards and notifiers subscribe to anything', () => {
    for (const role of ['viewer', 'automation', 'dashboard', 'notifier'] as const) {
      expect(sub(as(role, '*'), '#')).toBe(true);
      expect(sub(as(role, '*'), '$SYS/#')).toBe(true);
    }
  });

  it('keeps a simulator to its own topics and the HA birth', () => {
    const s = as('simulator', 's1');
    expect(sub(s, 'outpost/simulator/s1/#')).toBe(true);
    expect(sub(s, 'homeassistant/status')).toBe(true);
    expect(sub(s, 'outpost/simulator/+/position')).toBe(false);
  });

  it('decides filter containment level by level', () => {
    expect(filterCovers('a/+/c', 'a/b/c')).toBe(true);
    expect(filterCovers('a/+/c', 'a/+/c')).toBe(true);
    expect(filterCovers('a/b/c', 'a/+/c')).toBe(false);
    expect(filterCovers('a/#', 'a')).toBe(true);
    expect(filterCovers('a/#', 'a/+/#')).toBe(true);
    expect(filterCovers('a/+', 'a/#')).toBe(false);
    expect(filterCovers('a/+', 'a/b/c')).toBe(false);
  });
});
