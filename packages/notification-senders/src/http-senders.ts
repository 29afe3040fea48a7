import { httpSend, jsonHeaders, rebase } from './http.js';
import { DEFAULT_BASE_URLS, type Message, type SendOptions, type SendResult, type Target } from './types.js';

type Of<K extends Target['kind']> = Extract<Target, { kind: K }>;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const joined = (m: Message, sep = '\n\n') => (m.title ? `${m.title}${sep}${m.body}` : m.body);
const basic = (user: string, password = '') =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Sends to several sub-targets in turn; the first failure is the result. */
async function each<T>(items: T[], fn: (item: T) => Promise<SendResult>): Promise<SendResult> {
  for (const item of items) {
    const r = await fn(item);
    if (!r.ok) return r;
  }
  return { ok: true };
}

/** Telegram Bot API sendMessage, one request per chat. Plain text: no parse_mode, so nothing needs escaping. */
export function sendTelegram(t: Of<'telegram'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const base = (opts.baseUrls?.telegram ?? DEFAULT_BASE_URLS.telegram).replace(/\/+$/, '');
  return each(t.chat_ids, (chat_id) =>
    httpSend(
      'telegram',
      {
        url: `${base}/bot${t.bot_token}/sendMessage`,
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ chat_id, text: clip(joined(m), 4096), disable_web_page_preview: true }),
      },
      opts,
      (json) => ((json as { ok?: unknown })?.ok === true ? null : 'reply without ok: true'),
    ),
  );
}

/** Discord execute-webhook: `content` up to 2000 characters, mentions disabled so a template cannot ping. */
export function sendDiscord(t: Of<'discord'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const content = clip(m.title ? `**${m.title}**\n${m.body}` : m.body, 2000);
  return httpSend(
    'discord',
    {
      url: rebase(t.webhook_url, DEFAULT_BASE_URLS.discord, opts.baseUrls?.discord),
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({
        content,
        allowed_mentions: { parse: [] },
        ...(t.username ? { username: t.username } : {}),
      }),
    },
    opts,
  );
}

/** Slack incoming webhook: a `text` message in mrkdwn. */
export function sendSlack(t: Of<'slack'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const text = m.title ? `*${m.title}*\n${m.body}` : m.body;
  return httpSend(
    'slack',
    {
      url: rebase(t.webhook_url, DEFAULT_BASE_URLS.slack, opts.baseUrls?.slack),
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ text, ...(t.channel ? { channel: t.channel } : {}) }),
    },
    opts,
  );
}

/** Pushover messages API, form-encoded; success is `status: 1`. */
export function sendPushover(t: Of<'pushover'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const base = (opts.baseUrls?.pushover ?? DEFAULT_BASE_URLS.pushover).replace(/\/+$/, '');
  const form = new URLSearchParams({
    token: t.api_token,
    user: t.user_key,
    message: clip(m.body || m.title, 1024),
  });
  if (m.title) form.set('title', clip(m.title, 250));
  if (t.devices.length) form.set('device', t.devices.join(','));
  return httpSend(
    'pushover',
    {
      url: `${base}/1/messages.json`,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': jsonHeaders['user-agent'],
      },
      body: form,
    },
    opts,
    (json) => ((json as { status?: unknown })?.status === 1 ? null : 'reply without status: 1'),
  );
}

/** ntfy JSON publishing: POST to the server root with the topic in the body. */
export function sendNtfy(t: Of<'ntfy'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const server = rebase(`${t.server}/`, DEFAULT_BASE_URLS.ntfy, opts.baseUrls?.ntfy);
  const headers: Record<string, string> = { ...jsonHeaders };
  if (t.token) headers.authorization = `Bearer ${t.token}`;
  else if (t.username) headers.authorization = basic(t.username, t.password);
  return each(t.topics, (topic) =>
    httpSend(
      'ntfy',
      {
        url: server,
        method: 'POST',
        headers,
        body: JSON.stringify({ topic, message: m.body, ...(m.title ? { title: m.title } : {}) }),
      },
      opts,
    ),
  );
}

/** Apprise's JSON notification document: version, title, message, type. */
export function sendJson(t: Of<'json'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const headers: Record<string, string> = { ...jsonHeaders, ...t.headers };
  if (t.username) headers.authorization = basic(t.username, t.password);
  const payload = { version: '1.0', title: m.title, message: m.body, type: 'info', ...t.extra };
  return httpSend('json', { url: t.url, method: t.method, headers, body: JSON.stringify(payload) }, opts);
}

/** Generic webhook: the message plus whatever context the caller adds (event name, ids). */
export function sendWebhook(t: Of<'webhook'>, m: Message, opts: SendOptions): Promise<SendResult> {
  const payload = { title: m.title, body: m.body, ...(opts.context ?? {}) };
  return httpSend(
    'webhook',
    {
      url: t.url,
      method: t.method,
      headers: { ...jsonHeaders, ...t.headers },
      body: JSON.stringify(payload),
    },
    opts,
  );
}
