import {
  type Column,
  Flag,
  formatAge,
  formatDuration,
  formatNumber,
  SIMULATOR_STATUS_MEANING,
  Status,
} from '@outpost/ui';
import type { FleetSimulator, FleetSite } from './types.js';

export const SIM_COLUMNS: Column<FleetSimulator>[] = [
  { key: 'id', title: 'Simulator', value: (s) => s.id, render: (s) => <strong>{s.id}</strong> },
  {
    key: 'online',
    title: 'Status',
    value: (s) => s.status,
    // Older dashboards' snapshots have no status word: fall back to online/offline.
    render: (s) => {
      const word = s.status ?? (s.online ? 'online' : 'offline');
      return <Status meaning={SIMULATOR_STATUS_MEANING[word] ?? 'unknown'}>{word}</Status>;
    },
  },
  {
    key: 'process',
    title: 'Process',
    value: (s) => s.available,
    render: (s) => <Flag value={s.available} yes="up" no="down" yesIs="online" noIs="offline" />,
  },
  { key: 'mode', title: 'Mode', value: (s) => s.mode },
  {
    key: 'running',
    title: 'Running',
    value: (s) => s.running,
    render: (s) => <Flag value={s.running} yesIs="running" noIs="stopped" />,
  },
  {
    key: 'reachable',
    title: 'Reachable',
    value: (s) => s.sim_reachable,
    render: (s) => <Flag value={s.sim_reachable} yesIs="ok" noIs="unreachable" />,
  },
  {
    key: 'receiving',
    title: 'Receiving',
    value: (s) => s.receiving_input ?? s.receiving_udp,
    render: (s) => <Flag value={s.receiving_input ?? s.receiving_udp} yesIs="ok" noIs="no_input" />,
  },
  { key: 'sim_ip', title: 'Sim IP', value: (s) => s.simulator_ip, render: (s) => s.simulator_ip ?? '–' },
  {
    key: 'uptime',
    title: 'Uptime',
    value: (s) => s.uptime_seconds,
    render: (s) => formatDuration(s.uptime_seconds),
    numeric: true,
  },
  { key: 'lat', title: 'Lat', value: (s) => s.lat, render: (s) => formatNumber(s.lat, 5), numeric: true },
  { key: 'lon', title: 'Lon', value: (s) => s.lon, render: (s) => formatNumber(s.lon, 5), numeric: true },
  {
    key: 'alt',
    title: 'Alt ft',
    value: (s) => s.altitude_ft,
    render: (s) => formatNumber(s.altitude_ft),
    numeric: true,
  },
  {
    key: 'kts',
    title: 'kt',
    value: (s) => s.speed_kts,
    render: (s) => formatNumber(s.speed_kts),
    numeric: true,
  },
  {
    key: 'hdg',
    title: 'Hdg',
    value: (s) => s.heading,
    render: (s) => formatNumber(s.heading),
    numeric: true,
  },
  {
    key: 'input_age',
    title: 'Last input',
    value: (s) => s.last_input_age_seconds,
    render: (s) => formatAge(s.last_input_age_seconds),
    numeric: true,
  },
  {
    key: 'hb_age',
    title: 'Heartbeat',
    value: (s) => s.last_heartbeat_age_seconds,
    render: (s) => formatAge(s.last_heartbeat_age_seconds),
    numeric: true,
  },
];

export const SITE_COLUMNS: Column<FleetSite>[] = [
  { key: 'id', title: 'Site', value: (g) => g.id, render: (g) => <strong>{g.id}</strong> },
  {
    key: 'controller',
    title: 'Controller',
    value: (g) => g.controller_online,
    render: (g) => (
      <Flag value={g.controller_online} yes="online" no="offline" yesIs="online" noIs="offline" />
    ),
  },
  {
    key: 'running',
    title: 'Generator',
    value: (g) => g.running,
    render: (g) => <Flag value={g.running} yes="running" no="stopped" yesIs="running" noIs="stopped" />,
  },
  {
    key: 'armed',
    title: 'Armed',
    value: (g) => g.armed,
    render: (g) => <Flag value={g.armed} yesIs="armed" noIs="disarmed" />,
  },
  {
    key: 'relaynode',
    title: 'Relay node',
    value: (g) => g.relaynode_online,
    render: (g) => (
      <Flag value={g.relaynode_online} yes="online" no="offline" yesIs="online" noIs="offline" />
    ),
  },
  {
    key: 'relay',
    title: 'Relay',
    value: (g) => g.relay_on,
    render: (g) => <Flag value={g.relay_on} yes="on" no="off" yesIs="relay_on" noIs="relay_off" />,
  },
  {
    key: 'epo',
    title: 'EPO',
    value: (g) => g.physical_safety_engaged,
    // An engaged emergency stop is the alarm, so "yes" is drawn as bad.
    render: (g) => (
      <Flag
        value={g.physical_safety_engaged === null ? null : !g.physical_safety_engaged}
        yes="clear"
        no="ENGAGED"
        yesIs="clear"
        noIs="epo"
      />
    ),
  },
  {
    key: 'failsafe',
    title: 'Failsafe',
    value: (g) => g.failsafe_triggered,
    render: (g) => (
      <Flag
        value={g.failsafe_triggered === null ? null : !g.failsafe_triggered}
        yes="ok"
        no="TRIGGERED"
        yesIs="ok"
        noIs="failsafe"
      />
    ),
  },
  {
    key: 'health',
    title: 'Health',
    value: (g) => g.health_alarm ?? '',
    render: (g) =>
      g.controller_online ? (
        <Flag
          value={!g.health_alarm}
          yes="ok"
          no={(g.health_alarm ?? '').split('_').join(' ').toUpperCase()}
          yesIs="ok"
          noIs="alarm"
        />
      ) : (
        <Flag value={null} />
      ),
  },
];
