import { DEFAULT_BASE_URLS, type ParseResult, type Target } from './types.js';

/**
 * Apprise-style notifier URLs. Parsed by hand rather than with WHATWG URL because the authority of
 * several schemes is not a host (a Telegram bot token contains `:`, a Slack channel starts with `#`),
 * and `+` in a query key means "header", not a space.
 */
interface Parts {
  scheme: string;
  user?: string | undefined;
  password?: string | undefined;
  /** Everything between userinfo and the first `/`, undecoded host[:port] or a token. */
  authority: string;
  segments: string[];
  query: Map<string, string>;
}

export const SUPPORTED_SCHEMES = [
  'json',
  'jsons',
  'tgram',
  'discord',
  'slack',
  'pover',
  'ntfy',
  'ntfys',
  'mailto',
  'mailtos',
] as const;

const EMAIL = /^[^\s@<>,;]+@[^\s@<>,;]+$/;
const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/;

class UrlError extends Error {}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new UrlError('invalid percent-encoding');
  }
}

function split(url: string): Parts {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(url.trim());
  if (!m) throw new UrlError('expected <scheme>://…');
  const scheme = m[1]!.toLowerCase();
  let rest = m[2]!;
  const query = new Map<string, string>();
  const qi = rest.indexOf('?');
  if (qi >= 0) {
    for (const pair of rest.slice(qi + 1).split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const key = decode(eq >= 0 ? pair.slice(0, eq) : pair);
      query.set(
        key.startsWith('+') || key.startsWith(':') ? key : key.toLowerCase(),
        decode(eq >= 0 ? pair.slice(eq + 1) : ''),
      );
    }
    rest = rest.slice(0, qi);
  }
  const slash = rest.indexOf('/');
  let authority = slash >= 0 ? rest.slice(0, slash) : rest;
  const segments = (slash >= 0 ? rest.slice(slash + 1) : '').split('/').filter(Boolean).map(decode);
  let user: string | undefined;
  let password: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const info = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = info.indexOf(':');
    user = decode(colon >= 0 ? info.slice(0, colon) : info);
    password = colon >= 0 ? decode(info.slice(colon + 1)) : undefined;
  }
  return { scheme, user, password, authority, segments, query };
}

function hostPort(authority: string, what: string): { host: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d*))?$/.exec(authority);
  if (!m || !HOST.test(m[1]!)) throw new UrlError(`${what}: missing or invalid host`);
  if (m[2] === undefined || m[2] === '') return { host: m[1]! };
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UrlError(`${what}: invalid port`);
  return { host: m[1]!, port };
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(/[,\s]+/)
    .map((v) => v.trim())
    .filter(Boolean);

function method(value: string | undefined): 'POST' | 'PUT' | 'PATCH' {
  const m = (value ?? 'POST').toUpperCase();
  if (m === 'POST' || m === 'PUT' || m === 'PATCH') return m;
  throw new UrlError(`unsupported method ${m}`);
}

function parseJson(p: Parts): Target {
  const { host, port } = hostPort(p.authority, 'json');
  const proto = p.scheme === 'jsons' ? 'https' : 'http';
  const headers: Record<string, string> = {};
  const extra: Record<string, string> = {};
  for (const [k, v] of p.query) {
    if (k.startsWith('+') && k.length > 1) headers[k.slice(1)] = v;
    else if (k.startsWith(':') && k.length > 1) extra[k.slice(1)] = v;
  }
  const path = '/' + p.segments.map(encodeURIComponent).join('/');
  return {
    kind: 'json',
    url: `${proto}://${host}${port ? `:${port}` : ''}${path}`,
    method: method(p.query.get('method')),
    headers,
    username: p.user || undefined,
    password: p.password,
    extra,
  };
}

function parseTelegram(p: Parts): Target {
  const token = decode(p.authority).replace(/^bot(?=\d)/, '');
  if (!/^\d+:[A-Za-z0-9_-]+$/.test(token))
    throw new UrlError('tgram: expected tgram://<bot_token>/<chat_id>');
  const chats = [...p.segments, ...list(p.query.get('to'))];
  if (chats.length === 0) throw new UrlError('tgram: at least one chat id is required');
  for (const c of chats)
    if (!/^(-?\d+|@[A-Za-z0-9_]{3,})$/.test(c)) throw new UrlError('tgram: invalid chat id');
  return { kind: 'telegram', bot_token: token, chat_ids: chats };
}

function parseDiscord(p: Parts): Target {
  const id = decode(p.authority);
  const token = p.segments[0];
  if (!/^\d+$/.test(id) || !token || !/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new UrlError('discord: expected discord://<webhook_id>/<webhook_token>');
  }
  return {
    kind: 'discord',
    webhook_url: `${DEFAULT_BASE_URLS.discord}/api/webhooks/${id}/${token}`,
    username: p.user || undefined,
  };
}

function parseSlack(p: Parts): Target {
  const tokens = [decode(p.authority), ...p.segments.slice(0, 2)];
  if (tokens.length < 3 || tokens.some((t) => !/^[A-Za-z0-9]+$/.test(t))) {
    throw new UrlError('slack: expected slack://<tokenA>/<tokenB>/<tokenC>[/#channel]');
  }
  const channel = p.segments[2] ?? p.query.get('to');
  return {
    kind: 'slack',
    webhook_url: `${DEFAULT_BASE_URLS.slack}/services/${tokens.join('/')}`,
    channel: channel || undefined,
  };
}

function parsePushover(p: Parts): Target {
  const token = decode(p.authority);
  if (!p.user || !/^[A-Za-z0-9]+$/.test(p.user) || !/^[A-Za-z0-9]+$/.test(token)) {
    throw new UrlError('pover: expected pover://<user_key>@<api_token>[/<device>]');
  }
  return { kind: 'pushover', user_key: p.user, api_token: token, devices: p.segments };
}

function parseNtfy(p: Parts): Target {
  const tokenParam = p.query.get('token');
  const userToken = p.user?.startsWith('tk_') && p.password === undefined ? p.user : undefined;
  const auth = {
    username: userToken ? undefined : p.user || undefined,
    password: userToken ? undefined : p.password,
    token: tokenParam || userToken,
  };
  if (p.segments.length === 0) {
    // ntfy://<topic>: the public service, always over TLS.
    const topic = decode(p.authority);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) throw new UrlError('ntfy: invalid topic');
    return { kind: 'ntfy', server: DEFAULT_BASE_URLS.ntfy, topics: [topic], ...auth };
  }
  const { host, port } = hostPort(p.authority, 'ntfy');
  for (const t of p.segments) if (!/^[A-Za-z0-9_-]{1,64}$/.test(t)) throw new UrlError('ntfy: invalid topic');
  const proto = p.scheme === 'ntfys' ? 'https' : 'http';
  return { kind: 'ntfy', server: `${proto}://${host}${port ? `:${port}` : ''}`, topics: p.segments, ...auth };
}

function parseMailto(p: Parts): Target {
  const { host: domain, port } = hostPort(p.authority, 'mailto');
  const user = p.query.get('user') ?? p.user;
  const password = p.query.get('pass') ?? p.password;
  const smtpHost = p.query.get('smtp') || domain;
  if (!HOST.test(smtpHost)) throw new UrlError('mailto: invalid smtp host');
  const defaultFrom = user ? (user.includes('@') ? user : `${user}@${domain}`) : undefined;
  const from = p.query.get('from') || defaultFrom;
  if (!from || !EMAIL.test(from.replace(/^.*<(.+)>$/, '$1')))
    throw new UrlError('mailto: a from address is required');
  const to = [...p.segments, ...list(p.query.get('to'))];
  if (to.length === 0) to.push(from.replace(/^.*<(.+)>$/, '$1'));
  for (const addr of to) if (!EMAIL.test(addr)) throw new UrlError('mailto: invalid recipient address');
  const secure = p.scheme === 'mailtos';
  const effectivePort = Number(p.query.get('port') || port || (secure ? 587 : 25));
  if (!Number.isInteger(effectivePort) || effectivePort < 1 || effectivePort > 65535) {
    throw new UrlError('mailto: invalid port');
  }
  const implicitTls = secure && (effectivePort === 465 || p.query.get('mode') === 'ssl');
  return {
    kind: 'email',
    host: smtpHost.replace(/^\[|\]$/g, ''),
    port: effectivePort,
    secure: implicitTls,
    requireTls: secure && !implicitTls,
    username: user || undefined,
    password,
    from,
    to,
  };
}

const PARSERS: Record<(typeof SUPPORTED_SCHEMES)[number], (p: Parts) => Target> = {
  json: parseJson,
  jsons: parseJson,
  tgram: parseTelegram,
  discord: parseDiscord,
  slack: parseSlack,
  pover: parsePushover,
  ntfy: parseNtfy,
  ntfys: parseNtfy,
  mailto: parseMailto,
  mailtos: parseMailto,
};

/** Parses one notifier URL; the error never repeats the URL (it may hold a token). */
export function parseNotifierUrl(url: string): ParseResult {
  if (typeof url !== 'string' || url.length > 2000)
    return { ok: false, error: 'notifier URL must be a string of at most 2000 characters' };
  try {
    const parts = split(url);
    const parser = PARSERS[parts.scheme as keyof typeof PARSERS];
    if (!parser) {
      return {
        ok: false,
        error: `unsupported scheme ${parts.scheme}:// (supported: ${SUPPORTED_SCHEMES.join(', ')})`,
      };
    }
    return { ok: true, target: parser(parts) };
  } catch (err) {
    if (err instanceof UrlError) return { ok: false, error: err.message };
    throw err;
  }
}

/** A form safe for logs and API reads: the scheme and, for self-hosted targets, the host. */
export function redactNotifierUrl(url: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url.trim());
  if (!m) return '****';
  const scheme = m[1]!.toLowerCase();
  if (['json', 'jsons', 'ntfys', 'mailto', 'mailtos'].includes(scheme)) {
    try {
      const parts = split(url);
      if (HOST.test(parts.authority.replace(/:\d+$/, ''))) return `${scheme}://${parts.authority}/****`;
    } catch {
      // fall through to the bare form
    }
  }
  return `${scheme}://****`;
}
