import { type NotifyTarget, parseNotifierUrl, redactNotifierUrl } from './url.js';

/** Apprise's notification types; they colour or prioritise the message where a service supports it. */
export type NotifyType = 'info' | 'success' | 'warning' | 'failure';

export interface NotifyMessage {
  title: string;
  body: string;
  type?: NotifyType;
}

/** Base URLs of the hosted services, overridable so tests (or a relay) reach a local server. */
export interface ProviderEndpoints {
  telegram: string;
  discord: string;
  slack: string;
  pushover: string;
  ntfy: string;
}

export const DEFAULT_ENDPOINTS: ProviderEndpoints = {
  telegram: 'https://api.telegram.org',
  discord: 'https://discord.com',
  slack: 'https://hooks.slack.com',
  pushover: 'https://api.pushover.net',
  ntfy: 'https://ntfy.sh',
};

export interface SendOptions {
  endpoints?: Partial<ProviderEndpoints>;
  timeoutMs?: number;
}

export interface DeliveryResult {
  /** Redacted: safe to log and to return to a client. */
  url: string;
  ok: boolean;
  error?: string;
}

/** Sends one message to every URL, in parallel; never throws, reports per URL. */
export async function notifyAll(
  urls: readonly string[],
  msg: NotifyMessage,
  opts: SendOptions = {},
): Promise<DeliveryResult[]> {
  return Promise.all(
    urls.map(async (url) => {
      try {
        await sendTo(parseNotifierUrl(url), msg, opts);
        return { url: redactNotifierUrl(url), ok: true };
      } catch (err) {
        return { url: redactNotifierUrl(url), ok: false, error: (err as Error).message };
      }
    }),
  );
}

export async function sendTo(
  target: NotifyTarget,
  msg: NotifyMessage,
  opts: SendOptions = {},
): Promise<void> {
  const ep = { ...DEFAULT_ENDPOINTS, ...opts.endpoints };
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const type = msg.type ?? 'info';
  const base = (s: string) => s.replace(/\/+$/, '');
  switch (target.kind) {
    case 'json': {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...target.headers };
      if (target.auth) headers.authorization = basic(target.auth.user, target.auth.pass);
      const payload = { version: '1.0', title: msg.title, message: msg.body, type };
      if (target.method === 'GET') {
        await http(`${target.url}?${new URLSearchParams(payload)}`, { method: 'GET', headers }, timeoutMs);
      } else {
        await http(target.url, { method: target.method, headers, body: JSON.stringify(payload) }, timeoutMs);
      }
      return;
    }
    case 'telegram':
      for (const chat of target.chatIds) {
        await postJson(
          `${base(ep.telegram)}/bot${target.botToken}/sendMessage`,
          {
            chat_id: chat,
            text: `${msg.title}\r\n${msg.body}`,
          },
          timeoutMs,
        );
      }
      return;
    case 'discord':
      await postJson(
        `${base(ep.discord)}/api/webhooks/${encodeURIComponent(target.webhookId)}/${encodeURIComponent(target.webhookToken)}`,
        {
          content: `**${msg.title}**\r\n${msg.body}`,
          ...(target.username ? { username: target.username } : {}),
        },
        timeoutMs,
      );
      return;
    case 'slack':
      await postJson(
        `${base(ep.slack)}/services/${target.tokens.map(encodeURIComponent).join('/')}`,
        {
          text: `*${msg.title}*\n${msg.body}`,
          ...(target.channel ? { channel: target.channel } : {}),
          ...(target.username ? { username: target.username } : {}),
        },
        timeoutMs,
      );
      return;
    case 'pushover': {
      const form = new URLSearchParams({
        token: target.token,
        user: target.userKey,
        title: msg.title,
        message: msg.body,
        priority: type === 'failure' ? '1' : '0',
      });
      if (target.devices.length) form.set('device', target.devices.join(','));
      await http(`${base(ep.pushover)}/1/messages.json`, { method: 'POST', body: form }, timeoutMs);
      return;
    }
    case 'ntfy': {
      const server = target.server ? `${target.secure ? 'https' : 'http'}://${target.server}` : base(ep.ntfy);
      const headers: Record<string, string> = {
        title: msg.title,
        priority: type === 'failure' ? 'high' : 'default',
        tags:
          type === 'failure'
            ? 'rotating_light'
            : type === 'success'
              ? 'white_check_mark'
              : 'information_source',
      };
      if (target.auth) headers.authorization = basic(target.auth.user, target.auth.pass);
      await http(
        `${server}/${encodeURIComponent(target.topic)}`,
        { method: 'POST', headers, body: msg.body },
        timeoutMs,
      );
      return;
    }
    case 'email': {
      // Loaded on first use: the node runs on a 512 MB board and most sites never send mail.
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport({
        host: target.smtpHost,
        port: target.port,
        secure: target.security === 'tls',
        requireTLS: target.security === 'starttls',
        ignoreTLS: target.security === 'none',
        ...(target.auth ? { auth: { user: target.auth.user, pass: target.auth.pass } } : {}),
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      });
      try {
        await transport.sendMail({
          from: target.fromName ? { name: target.fromName, address: target.from } : target.from,
          to: target.to,
          subject: msg.title,
          text: msg.body,
        });
      } finally {
        transport.close();
      }
      return;
    }
  }
}

function basic(user: string, pass: string): string {
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

async function postJson(url: string, body: unknown, timeoutMs: number): Promise<void> {
  await http(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    timeoutMs,
  );
}

async function http(url: string, init: RequestInit, timeoutMs: number): Promise<void> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  // Drain the body so the connection can be reused or closed.
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${new URL(url).host}`);
}
