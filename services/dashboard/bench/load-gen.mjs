// Synthetic fleet: every simulator publishes a heartbeat and a position once a second, in batches
// spread over the second (one MQTT connection; the broker fans out to the dashboard).
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import mqtt from 'mqtt';

const url = process.env.BENCH_MQTT_URL;
const count = Number(process.env.BENCH_SIMULATORS ?? 5000);
const prefix = process.env.MQTT_TOPIC_PREFIX ?? DEFAULT_PREFIX;
const batches = 20;
const ids = Array.from({ length: count }, (_, i) => `sim-${String(i).padStart(5, '0')}`);
const started = Date.now();

const client = await mqtt.connectAsync(url, { clientId: `bench-load-${process.pid}`, protocolVersion: 4 });
for (const id of ids)
  client.publish(`${prefix}/simulator/${id}/availability`, 'online', { qos: 1, retain: true });

let sent = 0;
let slot = 0;
const tick = () => {
  const now = Date.now();
  const from = Math.floor((slot * count) / batches);
  const to = Math.floor(((slot + 1) * count) / batches);
  for (let i = from; i < to; i++) {
    const id = ids[i];
    // Scattered, moving positions: the fleet_state compresses like a real one, not like a test pattern.
    const lat = +(25 + ((i * 7919) % 2400) / 100 + Math.random() * 0.01).toFixed(6);
    const lon = +(-124 + ((i * 104729) % 5800) / 100 + Math.random() * 0.01).toFixed(6);
    const alt = Math.round(Math.random() * 35000);
    const hb =
      `{"sim_reachable":true,"receiving_udp":${i % 3 !== 0},"uptime_seconds":${Math.floor((now - started) / 1000)},` +
      `"mode":"rebroadcaster","running":true,"lat":${lat},"lon":${lon},"altitude_ft":${alt},` +
      `"last_input_age_seconds":${(Math.random() * 0.9).toFixed(1)},"simulator_ip":"127.0.0.1","timestamp_ms":${now}}`;
    const pos =
      `{"lat":${lat},"lon":${lon},"altitude_ft":${alt},"speed_kts":${(Math.random() * 450).toFixed(1)},` +
      `"heading":${(1 + Math.random() * 359).toFixed(1)},"airport_icao":null,"timestamp_ms":${now}}`;
    client.publish(`${prefix}/simulator/${id}/heartbeat`, hb, { qos: 0 });
    client.publish(`${prefix}/simulator/${id}/position`, pos, { qos: 0 });
    sent += 2;
  }
  slot = (slot + 1) % batches;
};
const origin = Date.now();
let n = 0;
const schedule = () => {
  n++;
  setTimeout(
    () => {
      tick();
      schedule();
    },
    Math.max(0, origin + (n * 1000) / batches - Date.now()),
  );
};
schedule();
setInterval(() => process.stdout.write(`${JSON.stringify({ sent })}\n`), 5000).unref();
process.on('SIGTERM', () => {
  client.end(true);
  process.exit(0);
});
