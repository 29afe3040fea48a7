// The least a controller must do for a start or a stop, as a reference for the command-path figures:
// node:http, one PostgreSQL write (the state row, unflushed on a start as the controller's is), then
// the relay-desired message at QoS 1 on the same broker to the same relay node. No auth, no validation,
// no run record, no events. Run by bench/bare-pipeline.mjs as a child process.
// Environment: BARE_PORT, BARE_DATABASE_URL, BARE_MQTT_URL, BARE_DESIRED_TOPIC.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import mqtt from 'mqtt';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 5 });
await pool.query(
  'create table if not exists bench_bare_state (id int primary key, running boolean not null, at bigint not null)',
);
const client = await mqtt.connectAsync(process.env.BARE_MQTT_URL, { clean: true });
const topic = process.env.BARE_DESIRED_TOPIC;
const epoch = randomBytes(8).toString('hex');
let seq = 0;
let armed = false;
let running = false;

const write = (flushed) => ({
  name: flushed ? 'bare_state' : 'bare_state_unflushed',
  text: `with w as (insert into bench_bare_state (id, running, at) values (1, $1, $2)
    on conflict (id) do update set running = excluded.running, at = excluded.at)
    select ${flushed ? '1' : `set_config('synchronous_commit', 'off', true)`}`,
  values: [running, Date.now()],
});

async function command(verb) {
  if (verb === 'arm') armed = true;
  else if (verb === 'start') running = true;
  else if (verb === 'stop') running = false;
  else return 404;
  await pool.query(write(verb !== 'start'));
  const now = Date.now();
  const desired = {
    epoch,
    seq: ++seq,
    issued_at: now,
    expires_at: now + 30_000,
    heartbeat_interval: 10,
    armed,
    relay_on: running && armed,
  };
  await client.publishAsync(topic, JSON.stringify(desired), { qos: 1 });
  return 200;
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    const verb = /^\/api\/generator\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
    const status = req.method === 'POST' ? await command(verb).catch(() => 500) : 404;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? '{"success":true}' : '{"detail":"no"}');
  });
});
server.listen(Number(process.env.BARE_PORT), '127.0.0.1', () =>
  process.stdout.write('bare command server up\n'),
);
