/**
 * Apprise-style notifier URLs: `scheme://[user[:pass]@]host[:port]/path?query`. Parsed by hand rather
 * than with WHATWG URL because several schemes put non-host things where the host goes (a Telegram
 * bot token `123:ABC` reads as host:port, a Pushover `user@token`).
 */

export type NotifyTarget =
  | { kind: 'json'; url: string; method: string; headers: Record<string, string>; auth: Basic | null }
  | { kind: 'telegram'; botToken: string; chatIds: string[] }
  | { kind: 'discord'; webhookId: string; webhookToken: string; username: string | null }
  | { kind: 'slack'; tokens: [string, string, string]; channel: string | null; username: string | null }
  | { kind: 'pushover'; userKey: string; token: string; devices: string[] }
  | { kind: 'ntfy'; server: string | null; secure: boolean; topic: string; auth: Basic | null }
  | {
      kind: 'email';
      smtpHost: string;
      port: number;
      security: 'none' | 'starttls' | 'tls';
      auth: Basic | null;
      from: string;
      fromName: string | null;
      to: string[];
    };

export interface Basic {
  user: string;
  pass: string;
}

export class NotifierUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotifierUrlError';
  }
}

interface Parts {
  scheme: string;
  user: string | null;
  pass: string | null;
  host: string;
  port: number | null;
  path: string[];
  query: URLSearchParams;
}

const dec = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new NotifierUrlError('bad percent-encoding');
  }
};

function split(raw: string): Parts {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(raw.trim());
  if (!m) throw new NotifierUrlError('expected scheme://…');
  const scheme = m[1]!.toLowerCase();
  let rest = m[2]!;
  // No fragment handling: a Slack channel is written `/#channel` and stays part of the path.
  const query = new URLSearchParams();
  const q = rest.indexOf('?');
  if (q !== -1) {
    // Not URLSearchParams' parser: Apprise writes headers as `+Name=value`, and that '+' is literal.
    for (const pair of rest.slice(q + 1).split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      query.append(dec(eq === -1 ? pair : pair.slice(0, eq)), dec(eq === -1 ? '' : pair.slice(eq + 1)));
    }
    rest = rest.slice(0, q);
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = (slash === -1 ? '' : rest.slice(slash + 1)).split('/').filter(Boolean).map(dec);
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? null : authority.slice(0, at);
  const hostport = at === -1 ? authority : authority.slice(at + 1);
  let user: string | null = null;
  let pass: string | null = null;
  if (userinfo !== null) {
    const c = userinfo.indexOf(':');
    user = dec(c === -1 ? userinfo : userinfo.slice(0, c));
    pass = c === -1 ? null : dec(userinfo.slice(c + 1));
  }
  let host = hostport;
  let port: number | null = null;
  const pm = /^(.*):(\d{1,5})$/.exec(hostport);
  if (pm && !hostport.endsWith(']')) {
    host = pm[1]!;
    port = Number(pm[2]);
  }
  return { scheme, user, pass, host: dec(host), port, path, query };
}

const need = (value: string | undefined | null, what: string): string => {
  if (!value) throw new NotifierUrlError(`missing ${what}`);
  return value;
};

export function parseNotifierUrl(raw: string): NotifyTarget {
  const p = split(raw);
  switch (p.scheme) {
    case 'json':
    case 'jsons':
      return parseJson(p);
    case 'tgram':
      return parseTelegram(raw);
    case 'discord':
      return {
        kind: 'discord',
        webhookId: need(p.host, 'webhook id'),
        webhookToken: need(p.path[0], 'webhook token'),
        username: p.user,
      };
    case 'slack': {
      const [b, c, ...more] = p.path;
      const channel = more.find((x) => x.startsWith('#') || x.startsWith('@')) ?? p.query.get('channel');
      return {
        kind: 'slack',
        tokens: [need(p.host, 'token A'), need(b, 'token B'), need(c, 'token C')],
        channel: channel ?? null,
        username: p.user,
      };
    }
    case 'pover':
      return {
        kind: 'pushover',
        userKey: need(p.user, 'user key (pover://user_key@token)'),
        token: need(p.host, 'API token'),
        devices: p.path,
      };
    case 'ntfy':
    case 'ntfys':
      return parseNtfy(p);
    case 'mailto':
    case 'mailtos':
      return parseMail(p);
    default:
      throw new NotifierUrlError(`unsupported scheme ${p.scheme}://`);
  }
}

function parseJson(p: Parts): NotifyTarget {
  const headers: Record<string, string> = {};
  for (const [k, v] of p.query) if (k.startsWith('+') && k.length > 1) headers[k.slice(1)] = v;
  const method = (p.query.get('method') ?? 'POST').toUpperCase();
  if (!['POST', 'PUT', 'PATCH', 'GET'].includes(method))
    throw new NotifierUrlError(`unsupported method ${method}`);
  const proto = p.scheme === 'jsons' ? 'https' : 'http';
  const host = need(p.host, 'host');
  const url = `${proto}://${host}${p.port ? `:${p.port}` : ''}/${p.path.map(encodeURIComponent).join('/')}`;
  return { kind: 'json', url, method, headers, auth: p.user ? { user: p.user, pass: p.pass ?? '' } : null };
}

function parseTelegram(raw: string): NotifyTarget {
  // tgram://{bot_token}/{chat_id}[/{chat_id}…]; the token itself contains ':'.
  const body = raw.trim().slice('tgram://'.length).split('?')[0]!;
  const [token, ...chats] = body.split('/').filter(Boolean).map(dec);
  if (!token || !/^\d+:[\w-]+$/.test(token))
    throw new NotifierUrlError('expected tgram://{bot_token}/{chat_id}');
  if (chats.length === 0) throw new NotifierUrlError('missing chat id');
  return { kind: 'telegram', botToken: token, chatIds: chats };
}

function parseNtfy(p: Parts): NotifyTarget {
  const auth = p.user ? { user: p.user, pass: p.pass ?? '' } : null;
  if (p.path.length === 0) {
    // ntfy://topic: the public ntfy server, always over TLS.
    return { kind: 'ntfy', server: null, secure: true, topic: need(p.host, 'topic'), auth };
  }
  const server = `${need(p.host, 'host')}${p.port ? `:${p.port}` : ''}`;
  return { kind: 'ntfy', server, secure: p.scheme === 'ntfys', topic: p.path[0]!, auth };
}

function parseMail(p: Parts): NotifyTarget {
  const host = need(p.host, 'host');
  const secureScheme = p.scheme === 'mailtos';
  const mode = p.query.get('mode')?.toLowerCase();
  const port =
    p.port ??
    (p.query.get('port') ? Number(p.query.get('port')) : secureScheme ? (mode === 'ssl' ? 465 : 587) : 25);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new NotifierUrlError('bad port');
  const security: 'none' | 'starttls' | 'tls' = !secureScheme
    ? 'none'
    : mode === 'ssl' || port === 465
      ? 'tls'
      : 'starttls';
  const user = p.query.get('user') ?? p.user;
  const pass = p.query.get('pass') ?? p.pass;
  const from =
    p.query.get('from') ?? (user ? (user.includes('@') ? user : `${user}@${host}`) : `relaynode@${host}`);
  const to = [
    ...p.path.filter((x) => x.includes('@')),
    ...(p.query.get('to') ?? '').split(/[,\s]+/).filter(Boolean),
  ];
  return {
    kind: 'email',
    smtpHost: p.query.get('smtp') ?? host,
    port,
    security,
    auth: user && pass ? { user, pass } : null,
    from,
    fromName: p.query.get('name'),
    to: to.length ? to : [from],
  };
}

/** The URL with secrets masked, for logs and for GET responses. */
export function redactNotifierUrl(raw: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?]*)(.*)$/i.exec(raw.trim());
  if (!m) return '***';
  const [, scheme, authority, rest] = m;
  const s = scheme!.toLowerCase();
  if (['tgram', 'discord', 'slack', 'pover'].includes(s)) return `${s}://***`;
  const at = authority!.lastIndexOf('@');
  const host = at === -1 ? authority : `***@${authority!.slice(at + 1)}`;
  return `${s}://${host}${rest!.replace(/([?&](pass|token|\+[^=]*)=)[^&]*/gi, '$1***')}`;
}
