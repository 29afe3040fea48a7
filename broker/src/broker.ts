import './packet-memory.js';
import { Aedes, type AedesOptions, type AuthenticateError, type Client, type ConnectPacket } from 'aedes';
import type { Registry } from 'prom-client';
import {
  automationMayPublishFeedback,
  automationMayPublishStatestream,
  canPublish,
  canRead,
  canSubscribe,
  canUseClientId,
  checkPublishCommon,
  DEFAULT_HA_PREFIX,
  DEFAULT_TOPIC_PREFIX,
  type Verdict,
} from './acl.js';
import type { Duplex } from 'node:stream';
import { type ConnectionLimits, ConnectionsPerIp, DEFAULT_LIMITS, guardPacketSize } from './limits.js';
import {
  type Admit,
  type Listener,
  type ListenerTls,
  listenTcp,
  listenUnix,
  listenTls,
  listenWebSocket,
} from './listeners.js';
import { DEFAULT_LOGIN_GATE, LoginGate, type LoginGateOptions } from './login-gate.js';
import { useFifoBacklog } from './delivery-backlog.js';
import type { RedisBackplane } from './redis.js';
import { BrokerCounters, createBrokerRegistry, publishSysStats } from './stats.js';
import { type MqttUser, type Principal, type UsersFile, verifyPassword } from './users.js';

/** The subset of a pino logger the broker uses. */
export interface BrokerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface StartBrokerOptions {
  /** TCP port; 0 picks a free one. Default 1883. */
  port?: number;
  /** WebSocket port; 0 picks a free one; false: no WebSocket listener. Default 9001 (0 when `port` is 0). */
  wsPort?: number | false;
  host?: string;
  /**
   * Certificate and key: the broker also listens for MQTTS on `tlsPort` and WSS on `wssPort`, on
   * `host`, while the plain listeners move to `plainHost`.
   */
  tls?: ListenerTls | null;
  /** MQTTS port; 0 picks a free one. Default 8883. */
  tlsPort?: number;
  /** WSS port; 0 picks a free one; false: none. Default 8884 (0 when `tlsPort` is 0). */
  wssPort?: number | false;
  /** Address of the plain TCP and WebSocket listeners. Default `host`. */
  plainHost?: string;
  /** Path of a Unix socket listener (MQTT_SOCKET) for the services on this host; unset: none. */
  socketPath?: string;
  /** Given: every client must log in and the ACL applies. Null/absent: no authentication, no ACL. */
  users?: UsersFile | null;
  /** With `users`: clients without credentials may connect, as read-only viewers. */
  allowAnonymous?: boolean;
  prefix?: string;
  /** Home Assistant's discovery prefix (HA_DISCOVERY_PREFIX): each account may announce its own device under it. */
  haPrefix?: string;
  /** MQTT_AUTOMATION_FEEDBACK: `automation` accounts may also publish `controller/<id>/running_feedback`. */
  automationFeedback?: boolean;
  /**
   * HA_STATESTREAM_BASE: `automation` accounts may publish Home Assistant's statestream,
   * `<base>/<domain>/<object_id>/state`. Default: `haPrefix`.
   */
  haStatestreamBase?: string;
  /** Share sessions, retained messages and delivery with other broker processes through Redis. */
  redisUrl?: string;
  /** Prefix of every stored Redis key. Default `<prefix>:`. */
  redisPrefix?: string;
  /** Broker id (aedes' own is random); one per process in a Redis cluster. */
  id?: string;
  logger?: BrokerLogger;
  /** How often $SYS/broker/... is republished. Default 10 s. */
  statsIntervalMs?: number;
  /** Packet size and connections per address. */
  limits?: Partial<ConnectionLimits>;
  /** Failed logins per address, and the bounded scrypt queue. */
  loginGate?: Partial<LoginGateOptions>;
  /** Seconds a new connection has to send CONNECT. Default 10. */
  connectTimeoutSeconds?: number;
}

export interface RunningBroker {
  url: string;
  wsUrl: string | null;
  port: number;
  wsPort: number | null;
  /** mqtts://…, with TLS. */
  tlsUrl: string | null;
  wssUrl: string | null;
  tlsPort: number | null;
  wssPort: number | null;
  aedes: Aedes;
  registry: Registry;
  close(): Promise<void>;
}

const RC_IDENTIFIER_REJECTED = 2;
const RC_SERVER_UNAVAILABLE = 3;
const RC_BAD_CREDENTIALS = 4;
const RC_NOT_AUTHORIZED = 5;

const silent: BrokerLogger = { info() {}, warn() {}, debug() {} };

function authError(message: string, returnCode: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

function liveClients(aedes: Aedes | undefined): Record<string, Client> {
  return (aedes as unknown as { clients?: Record<string, Client> } | undefined)?.clients ?? {};
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

// Compared against when the username is unknown, so a wrong username costs as much as a wrong password.
const DUMMY_USER = { salt: '00'.repeat(16), hash: '00'.repeat(32) };

const ANONYMOUS_VIEWER: Principal = { username: '(anonymous)', role: 'viewer', id: '*' };

export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const host = opts.host ?? '0.0.0.0';
  const prefix = opts.prefix ?? DEFAULT_TOPIC_PREFIX;
  const ha = opts.haPrefix ?? DEFAULT_HA_PREFIX;
  const statestream = opts.haStatestreamBase ?? ha;
  const log = opts.logger ?? silent;
  const users = opts.users ? new Map<string, MqttUser>(opts.users.users.map((u) => [u.username, u])) : null;
  const principals = new WeakMap<Client, Principal>();
  const connectPackets = new WeakMap<Client, ConnectPacket>();
  const counters = new BrokerCounters();
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  const gate = new LoginGate({ ...DEFAULT_LOGIN_GATE, ...opts.loginGate });
  const perIp = new ConnectionsPerIp(limits.maxConnectionsPerIp);
  const peers = new WeakMap<Duplex, string>();
  const admit: Admit = (stream, ip) => {
    if (!perIp.admit(ip, stream)) {
      log.warn({ ip, max: limits.maxConnectionsPerIp }, 'refused connection: too many from this address');
      return false;
    }
    peers.set(stream, ip);
    guardPacketSize(stream, limits.maxPacketBytes, (bytes) =>
      log.warn({ ip, bytes, max: limits.maxPacketBytes }, 'dropped connection: packet too large'),
    );
    return true;
  };

  const refused = (client: Client | null, what: string, verdict: Verdict & { ok: false }) => {
    const who = client ? principals.get(client) : undefined;
    log.warn({ clientId: client?.id, username: who?.username, reason: verdict.reason }, `refused ${what}`);
  };

  const hooks: AedesOptions = {
    preConnect(client, packet, done) {
      connectPackets.set(client, packet);
      done(null, true);
    },
    authenticate(client, username, password, done) {
      if (!users) return done(null, true);
      if (username === undefined || username === '') {
        if (opts.allowAnonymous) {
          principals.set(client, ANONYMOUS_VIEWER);
          return done(null, true);
        }
        log.warn({ clientId: client.id }, 'refused connection without credentials');
        return done(authError('credentials required', RC_NOT_AUTHORIZED), false);
      }
      const user = users.get(username);
      const ip = peers.get(client.conn as unknown as Duplex) ?? '';
      const secret = password ?? Buffer.alloc(0);
      gate
        .login(ip, username, secret, () => verifyPassword(user ?? DUMMY_USER, secret))
        .then((outcome) => {
          if (outcome === 'busy' || outcome === 'blocked') {
            log.warn({ clientId: client.id, username, ip, outcome }, 'refused connection: login not checked');
            return done(authError(`login refused (${outcome})`, RC_SERVER_UNAVAILABLE), false);
          }
          if (!user || outcome !== 'ok') {
            log.warn({ clientId: client.id, username }, 'refused connection: bad username or password');
            return done(authError('bad username or password', RC_BAD_CREDENTIALS), false);
          }
          const principal: Principal = { username: user.username, role: user.role, id: user.id };
          const idVerdict = canUseClientId(principal, client.id);
          if (!idVerdict.ok) {
            log.warn(
              { clientId: client.id, username, reason: idVerdict.reason },
              'refused connection: client id',
            );
            return done(authError(idVerdict.reason, RC_IDENTIFIER_REJECTED), false);
          }
          // aedes hands a client id to whoever connects last; do not let one user kick another off.
          const holder = liveClients(aedes)[client.id];
          const holderName = holder && holder !== client ? principals.get(holder)?.username : undefined;
          if (holderName !== undefined && holderName !== username) {
            log.warn(
              { clientId: client.id, username, holder: holderName },
              'refused connection: client id in use',
            );
            return done(authError('client id in use by another user', RC_IDENTIFIER_REJECTED), false);
          }
          // The will is published later on the client's behalf, so it must pass the ACL now.
          const will = connectPackets.get(client)?.will;
          if (will) {
            const verdict = canPublish(principal, will.topic, Boolean(will.retain), prefix, ha);
            if (!verdict.ok) {
              log.warn({ clientId: client.id, username, reason: verdict.reason }, 'refused connection: will');
              return done(authError(`will refused: ${verdict.reason}`, RC_NOT_AUTHORIZED), false);
            }
          }
          principals.set(client, principal);
          done(null, true);
        });
    },
    authorizePublish(client, packet, done) {
      const retain = Boolean(packet.retain);
      let verdict = checkPublishCommon(packet.topic, retain, prefix);
      if (verdict.ok && users && client) {
        const who = principals.get(client);
        verdict = who
          ? canPublish(who, packet.topic, retain, prefix, ha)
          : { ok: false, reason: 'not logged in' };
        if (!verdict.ok && who && opts.automationFeedback) {
          const asFeedback = automationMayPublishFeedback(who, packet.topic, retain, prefix);
          if (asFeedback.ok) verdict = asFeedback;
        }
        if (!verdict.ok && who?.role === 'automation') {
          const asState = automationMayPublishStatestream(who, packet.topic, retain, statestream, prefix);
          if (asState.ok) verdict = asState;
        }
      }
      if (!verdict.ok) {
        refused(client, `publish to ${packet.topic}`, verdict);
        // aedes answers an error here by closing the connection (MQTT 3.1.1 has no publish NACK).
        return done(new Error(verdict.reason));
      }
      // Counted here rather than on aedes' 'publish' event, which fires after delivery and after PUBACK.
      counters.received++;
      done(null);
    },
    authorizeSubscribe(client, sub, done) {
      if (users) {
        const who = principals.get(client);
        const verdict = who
          ? canSubscribe(who, sub.topic, prefix, ha)
          : { ok: false as const, reason: 'not logged in' };
        if (!verdict.ok) {
          refused(client, `subscribe to ${sub.topic}`, verdict);
          // null: SUBACK carries 0x80 for this filter, the connection stays up.
          return done(null, null);
        }
      }
      done(null, sub);
    },
    authorizeForward(client, packet) {
      // A subscription to `#` is granted, but requests and responses reach only their two ends.
      if (users && client) {
        const who = principals.get(client);
        if (who && !canRead(who, packet.topic, prefix)) return null;
      }
      counters.sent++;
      return packet;
    },
  };

  let redis: RedisBackplane | null = null;
  // Loaded only with a backplane: ioredis and the Redis persistence are several MB of idle RSS that a
  // single broker (the default) never uses.
  if (opts.redisUrl) {
    const { createRedisBackplane } = await import('./redis.js');
    redis = createRedisBackplane(opts.redisUrl, opts.redisPrefix ?? `${prefix}:`);
  }

  const aedes = new Aedes({
    ...hooks,
    connectTimeout: (opts.connectTimeoutSeconds ?? 10) * 1000,
    ...(opts.id ? { id: opts.id } : {}),
    ...(redis ? { persistence: redis.persistence, mq: redis.mq } : {}),
  });
  // Before anything is published: fan-in otherwise makes delivery quadratic (see delivery-backlog.ts).
  useFifoBacklog((aedes as unknown as { mq: unknown }).mq);
  await aedes.listen();
  aedes.on('clientError', (client, err) =>
    log.debug({ clientId: client?.id, err: err.message }, 'client error'),
  );
  aedes.on('connectionError', (client, err) =>
    log.debug({ clientId: client?.id, err: err.message }, 'connection error'),
  );

  const listeners: Listener[] = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearInterval(statsTimer);
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await Promise.all(listeners.map((l) => l.close()));
    await redis?.close();
  };

  publishSysStats(aedes, counters);
  const statsTimer = setInterval(() => publishSysStats(aedes, counters), opts.statsIntervalMs ?? 10_000);
  statsTimer.unref();

  try {
    const plainHost = opts.plainHost ?? host;
    const tcp = await listenTcp(aedes, opts.port ?? 1883, plainHost, admit);
    const wsLimits = { maxPayload: limits.maxPacketBytes + 16 };
    listeners.push(tcp);
    // A random TCP port (tests) implies a random WebSocket port, so parallel brokers never collide on 9001.
    const wsPort = opts.wsPort ?? (opts.port === 0 ? 0 : 9001);
    const ws =
      wsPort === false ? null : await listenWebSocket(aedes, wsPort, plainHost, undefined, admit, wsLimits);
    if (ws) listeners.push(ws);
    if (opts.socketPath) listeners.push(await listenUnix(aedes, opts.socketPath, admit));
    let secure: Listener | null = null;
    let wss: Listener | null = null;
    if (opts.tls) {
      secure = await listenTls(aedes, opts.tlsPort ?? 8883, host, opts.tls, admit);
      listeners.push(secure);
      const wssPort = opts.wssPort ?? (opts.tlsPort === 0 ? 0 : 8884);
      wss = wssPort === false ? null : await listenWebSocket(aedes, wssPort, host, opts.tls, admit, wsLimits);
      if (wss) listeners.push(wss);
    }
    const shown = (bind: string) =>
      hostForUrl(bind === '0.0.0.0' ? '127.0.0.1' : bind === '::' ? '::1' : bind);
    const h = shown(plainHost);
    const t = shown(host);
    return {
      url: `mqtt://${h}:${tcp.port}`,
      wsUrl: ws ? `ws://${h}:${ws.port}` : null,
      port: tcp.port,
      wsPort: ws ? ws.port : null,
      tlsUrl: secure ? `mqtts://${t}:${secure.port}` : null,
      wssUrl: wss ? `wss://${t}:${wss.port}` : null,
      tlsPort: secure ? secure.port : null,
      wssPort: wss ? wss.port : null,
      aedes,
      registry: createBrokerRegistry(aedes, counters),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
