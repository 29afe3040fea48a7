import type { Target } from './types.js';
import { parseNotifierUrl } from './url.js';

/** The notifier's channel configs, field names as the generator-control spec's table. */
export interface ChannelConfigByType {
  telegram: { bot_token: string; chat_id: string };
  slack: { webhook_url: string };
  discord: { webhook_url: string };
  email: {
    smtp_host: string;
    smtp_port: number;
    username?: string | undefined;
    password?: string | undefined;
    from_email: string;
    to_emails: string[];
    /** Default true: no plain-text SMTP (password and mail) unless the channel says so. */
    require_tls?: boolean | undefined;
  };
  pushover: { user_key: string; api_token: string };
  apprise: { urls: string[] };
  webhook: {
    url: string;
    headers?: Record<string, string> | undefined;
    method?: 'POST' | 'PUT' | 'PATCH' | undefined;
  };
}

export type ChannelKind = keyof ChannelConfigByType;

export type TargetsResult = { ok: true; targets: Target[] } | { ok: false; field: string; error: string };

/** Turns a typed channel config into the targets it sends to. */
export function channelTargets<K extends ChannelKind>(
  type: K,
  config: ChannelConfigByType[K],
): TargetsResult {
  switch (type) {
    case 'telegram': {
      const c = config as ChannelConfigByType['telegram'];
      return { ok: true, targets: [{ kind: 'telegram', bot_token: c.bot_token, chat_ids: [c.chat_id] }] };
    }
    case 'slack':
      return {
        ok: true,
        targets: [{ kind: 'slack', webhook_url: (config as ChannelConfigByType['slack']).webhook_url }],
      };
    case 'discord':
      return {
        ok: true,
        targets: [{ kind: 'discord', webhook_url: (config as ChannelConfigByType['discord']).webhook_url }],
      };
    case 'email': {
      const c = config as ChannelConfigByType['email'];
      return {
        ok: true,
        targets: [
          {
            kind: 'email',
            host: c.smtp_host,
            port: c.smtp_port,
            // 465 is implicit TLS; other ports must upgrade with STARTTLS unless the channel says otherwise.
            secure: c.smtp_port === 465,
            requireTls: c.smtp_port !== 465 && c.require_tls !== false,
            username: c.username || undefined,
            password: c.username ? c.password : undefined,
            from: c.from_email,
            to: c.to_emails,
          },
        ],
      };
    }
    case 'pushover': {
      const c = config as ChannelConfigByType['pushover'];
      return {
        ok: true,
        targets: [{ kind: 'pushover', user_key: c.user_key, api_token: c.api_token, devices: [] }],
      };
    }
    case 'apprise': {
      const targets: Target[] = [];
      const urls = (config as ChannelConfigByType['apprise']).urls;
      for (const [i, url] of urls.entries()) {
        const parsed = parseNotifierUrl(url);
        if (!parsed.ok) return { ok: false, field: `urls.${i}`, error: parsed.error };
        targets.push(parsed.target);
      }
      return { ok: true, targets };
    }
    case 'webhook': {
      const c = config as ChannelConfigByType['webhook'];
      return {
        ok: true,
        targets: [{ kind: 'webhook', url: c.url, method: c.method ?? 'POST', headers: c.headers ?? {} }],
      };
    }
    default:
      return { ok: false, field: 'channel_type', error: `unknown channel type ${String(type)}` };
  }
}
