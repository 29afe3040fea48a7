import { FleetState, type simulator } from '@outpost/contracts';
import { describe, expect, it } from 'vitest';
import { FleetTracker } from '../src/domain/fleet.js';
import { parseSites, SiteTracker } from '../src/domain/sites.js';
import { buildSnapshot } from '../src/domain/snapshot.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

const hb = (over: Partial<simulator.SimulatorHeartbeat> = {}): simulator.SimulatorHeartbeat => ({
  sim_reachable: true,
  receiving_udp: true,
  uptime_seconds: 100,
  mode: 'rebroadcaster',
  running: true,
  lat: 47.1234567,
  lon: -122.7654321,
  altitude_ft: 1500,
  last_input_age_seconds: 0.2,
  simulator_ip: '10.0.0.9',
  timestamp_ms: T0,
  ...over,
});

const pos: simulator.SimulatorPosition = {
  lat: 47.2,
  lon: -122.1,
  altitude_ft: 3000.44,
  speed_kts: 120.04,
  heading: 270,
  timestamp_ms: T0,
};

describe('fleet online rule', () => {
  it('an expected simulator that never reported is listed offline', () => {
    const f = new FleetTracker({ expected: ['alpha', 'bravo'] });
    const s = f.get('bravo', T0);
    expect(s).toMatchObject({
      id: 'bravo',
      online: false,
      available: false,
      sim_reachable: null,
      mode: null,
    });
  });

  it('online while the heartbeat is under 3 s old, offline from 3 s', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    f.availability('alpha', true);
    f.heartbeat('alpha', hb(), T0);
    expect(f.get('alpha', T0 + 2999)?.online).toBe(true);
    expect(f.get('alpha', T0 + 3000)?.online).toBe(false);
  });

  it('needs a position under 5 s old: a heartbeat without position keeps it offline once the last one ages', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    f.position('alpha', pos, T0);
    const noFix = hb({ lat: null, lon: null });
    f.heartbeat('alpha', noFix, T0 + 2000);
    f.heartbeat('alpha', noFix, T0 + 4000);
    expect(f.get('alpha', T0 + 4900)?.online).toBe(true);
    f.heartbeat('alpha', noFix, T0 + 5000);
    expect(f.get('alpha', T0 + 5000)).toMatchObject({
      online: false,
      last_heartbeat_age_seconds: 0,
      last_position_age_seconds: 5,
    });
  });

  it('the last will turns it offline at once, whatever the age of its last heartbeat', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    f.availability('alpha', true);
    f.heartbeat('alpha', hb(), T0);
    f.availability('alpha', false);
    expect(f.get('alpha', T0 + 10)).toMatchObject({ online: false, available: false });
    // It restarts: birth, then heartbeats.
    f.availability('alpha', true);
    f.heartbeat('alpha', hb({ uptime_seconds: 1 }), T0 + 5000);
    expect(f.get('alpha', T0 + 5100)).toMatchObject({ online: true, available: true, uptime_seconds: 1 });
  });

  it('shows the heartbeat fields, the position and ages that keep growing between messages', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    f.heartbeat('alpha', hb(), T0);
    f.position('alpha', pos, T0 + 500);
    expect(f.get('alpha', T0 + 1500)).toEqual({
      id: 'alpha',
      online: true,
      available: true,
      sim_reachable: true,
      receiving_udp: true,
      uptime_seconds: 100,
      uptime: 100,
      mode: 'rebroadcaster',
      running: true,
      lat: 47.2,
      lon: -122.1,
      altitude_ft: 3000.4,
      speed_kts: 120,
      heading: 270,
      last_heartbeat_age_seconds: 1.5,
      last_position_age_seconds: 1,
      last_input_age_seconds: 1.7,
      status: 'online',
      receiving_input: true,
      simulator_ip: '10.0.0.9',
    });
  });

  it('names what it knows: process up, emulator running, input arriving, feed lost', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    const at = (ms: number) => f.get('alpha', T0 + ms)!;
    expect(at(0)).toMatchObject({ status: 'offline', receiving_input: null });
    f.availability('alpha', true);
    expect(at(0)).toMatchObject({ status: 'online, idle', available: true });
    f.heartbeat('alpha', hb({ running: false, lat: null, lon: null, last_input_age_seconds: null }), T0);
    expect(at(100)).toMatchObject({ status: 'stopped' });
    f.heartbeat('alpha', hb({ lat: null, lon: null, last_input_age_seconds: null }), T0 + 1000);
    expect(at(1100)).toMatchObject({ status: 'no input', receiving_input: false });
    f.heartbeat('alpha', hb({ last_input_age_seconds: 0.4 }), T0 + 2000);
    expect(at(2100)).toMatchObject({ status: 'online', receiving_input: true, online: true });
    // The feed stops: heartbeats go on, reporting an input age that grows past 5 s.
    f.heartbeat('alpha', hb({ lat: null, lon: null, last_input_age_seconds: 5.4 }), T0 + 7000);
    expect(at(7100)).toMatchObject({
      status: 'feed lost',
      receiving_input: false,
      available: true,
      online: false,
    });
    // An older simulator that keeps sending its last position is still seen as a lost feed.
    f.heartbeat('alpha', hb({ last_input_age_seconds: 9 }), T0 + 8000);
    expect(at(8100)).toMatchObject({ status: 'feed lost', receiving_input: false });
    // Heartbeats stop too: the process is up (no last will) but silent.
    expect(at(20_000)).toMatchObject({ status: 'online, idle', online: false });
    f.availability('alpha', false);
    expect(at(20_000)).toMatchObject({ status: 'offline' });
  });

  it('a simulator that sends positions only (no heartbeat outside rebroadcaster mode) is online while they are fresh', () => {
    const f = new FleetTracker({ expected: ['alpha'] });
    f.availability('alpha', true);
    f.position('alpha', pos, T0);
    expect(f.get('alpha', T0 + 4900)).toMatchObject({
      status: 'online',
      receiving_input: null,
      simulator_ip: null,
    });
    expect(f.get('alpha', T0 + 5000)).toMatchObject({ status: 'online, idle' });
  });

  it('simulators that are not configured are shown after the configured ones, up to the bound', () => {
    const overflow: string[] = [];
    const f = new FleetTracker({
      expected: ['zulu'],
      maxSimulators: 3,
      onOverflow: (id) => overflow.push(id),
    });
    for (const id of ['x1', 'x2', 'x3', 'x4']) f.heartbeat(id, hb(), T0);
    const ids = (JSON.parse(f.json(T0)) as { id: string }[]).map((s) => s.id);
    expect(ids).toEqual(['zulu', 'x1', 'x2']);
    expect(overflow).toEqual(['x3']);
    // A retained "offline" of an unknown simulator does not add a row.
    const g = new FleetTracker({ expected: [] });
    g.availability('ghost', false);
    expect(g.size).toBe(0);
  });
});

describe('fleet_state snapshot', () => {
  it('is a valid fleet_state with simulators and generator sites', () => {
    const f = new FleetTracker({ expected: ['alpha', 'bravo'] });
    f.heartbeat('alpha', hb(), T0);
    f.position('alpha', pos, T0);
    const sites = new SiteTracker(parseSites('main, north:north-relay'));
    sites.controllerAvailability('main', true);
    sites.controllerState('main', {
      running: true,
      state: 'running',
      current_run_id: 7,
      start_time: 1_790_000_000,
      runtime_seconds: 60,
      trigger: 'manual',
      armed: true,
      slave_connected: true,
      relay_node_relay_on: true,
    });
    sites.relaynodeAvailability('north-relay', false);
    sites.relaynodeState('main', {
      relay_on: true,
      armed: true,
      failsafe_triggered: false,
      physical_safety_engaged: true,
      applied_seq: 4,
      epoch: 'e',
      last_heartbeat: 1_790_000_000,
      timeout_seconds: 30,
      updated_at: Math.floor(T0 / 1000),
    });
    const snap = buildSnapshot(f, sites, T0 + 400);
    const parsed = FleetState.parse(JSON.parse(snap.text));
    expect(snap.bytes.toString('utf8')).toBe(snap.text);
    expect(parsed.timestamp_ms).toBe(T0 + 400);
    expect(parsed.simulators.map((s) => [s.id, s.online])).toEqual([
      ['alpha', true],
      ['bravo', false],
    ]);
    expect(parsed.generators).toEqual([
      {
        id: 'main',
        controller_online: true,
        running: true,
        armed: true,
        relaynode_online: true,
        relay_on: true,
        failsafe_triggered: false,
        physical_safety_engaged: true,
      },
      {
        id: 'north',
        controller_online: false,
        running: null,
        armed: null,
        relaynode_online: false,
        relay_on: null,
        failsafe_triggered: null,
        physical_safety_engaged: null,
      },
    ]);
  });

  it("a site row carries the controller's generator health alarm, and drops it once cleared", () => {
    const sites = new SiteTracker(parseSites('main'));
    sites.controllerAvailability('main', true);
    const state = {
      running: false,
      state: 'idle' as const,
      current_run_id: null,
      start_time: null,
      runtime_seconds: 0,
      trigger: null,
      armed: true,
      slave_connected: true,
    };
    sites.controllerState('main', { ...state, health_alarm: 'fail_to_start' });
    const snap = FleetState.parse(
      JSON.parse(buildSnapshot(new FleetTracker({ expected: [] }), sites, T0).text),
    );
    expect(snap.generators[0]).toMatchObject({ id: 'main', running: false, health_alarm: 'fail_to_start' });
    sites.controllerState('main', { ...state, health_alarm: null });
    expect(sites.list()[0]).not.toHaveProperty('health_alarm');
  });

  it('EXPECTED_SITES entries are checked', () => {
    expect(parseSites('a,b:c, a')).toEqual([
      { id: 'a', relaynode: 'a' },
      { id: 'b', relaynode: 'c' },
    ]);
    expect(() => parseSites('a/b')).toThrow(/not a controller id/);
  });

  it('5,000 simulators: a snapshot is built in well under the 1 s period', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `sim-${i}`);
    const f = new FleetTracker({ expected: ids });
    const sites = new SiteTracker([]);
    for (const id of ids) {
      f.heartbeat(id, hb(), T0);
      f.position(id, pos, T0);
    }
    buildSnapshot(f, sites, T0 + 100);
    const t = performance.now();
    for (let i = 0; i < 5; i++) {
      for (const id of ids) f.heartbeat(id, hb({ uptime_seconds: 100 + i }), T0 + i * 1000);
      buildSnapshot(f, sites, T0 + i * 1000 + 500);
    }
    const perSecond = (performance.now() - t) / 5;
    // Generous for a shared CI machine; the period it must fit in is 1,000 ms.
    expect(perSecond).toBeLessThan(400);
  });
});
