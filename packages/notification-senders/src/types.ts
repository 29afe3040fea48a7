/** What a notification says; every provider maps it to its own request. */
export interface Message {
  title: string;
  body: string;
}

/** A resolved destination. Every secret it holds stays inside the target and out of error messages. */
export type Target =
  | {
      kind: 'json';
      /** http(s) endpoint the JSON document is sent to. */
      url: string;
      method: 'POST' | 'PUT' | 'PATCH';
      headers: Record<string, string>;
      username?: string | undefined;
      password?: string | undefined;
      /** Extra top-level fields merged into the Apprise-style payload. */
      extra: Record<string, string>;
    }
  | { kind: 'telegram'; bot_token: string; chat_ids: string[] }
  | { kind: 'discord'; webhook_url: string; username?: string | undefined }
  | { kind: 'slack'; webhook_url: string; channel?: string | undefined }
  | { kind: 'pushover'; user_key: string; api_token: string; devices: string[] }
  | {
      kind: 'ntfy';
      /** Server root, e.g. https://ntfy.sh. */
      server: string;
      topics: string[];
      username?: string | undefined;
      password?: string | undefined;
      token?: string | undefined;
    }
  | {
      kind: 'email';
      host: string;
      port: number;
      /** Implicit TLS (port 465 style); otherwise STARTTLS when the server offers it. */
      secure: boolean;
      /** Refuse to send unless STARTTLS succeeds (mailtos:// on a non-465 port). */
      requireTls: boolean;
      username?: string | undefined;
      password?: string | undefined;
      from: string;
      to: string[];
    }
  | {
      kind: 'webhook';
      url: string;
      method: 'POST' | 'PUT' | 'PATCH';
      headers: Record<string, string>;
    };

export type TargetKind = Target['kind'];

export interface BaseUrls {
  telegram?: string | undefined;
  discord?: string | undefined;
  slack?: string | undefined;
  pushover?: string | undefined;
  ntfy?: string | undefined;
}

export interface SendOptions {
  /** Injected for tests or proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per request (HTTP) or per SMTP phase. */
  timeoutMs: number;
  /** Replace the public provider origins, e.g. to reach a local test peer. */
  baseUrls?: BaseUrls;
  /** Extra fields for the generic webhook body (event name, event id, …). */
  context?: Record<string, unknown>;
  /**
   * Checked before each connection with the target's host: a reason to refuse it, or null. The services
   * pass @outpost/runtime's outbound policy (no loopback, private or metadata addresses by default).
   */
  outbound?: (host: string) => Promise<string | null>;
}

export type SendResult =
  | { ok: true }
  | {
      ok: false;
      /** Human-readable, never contains a token, password or full webhook URL. */
      error: string;
      /** False when repeating the same request cannot help (bad credentials, 4xx). */
      retryable: boolean;
    };

export type ParseResult = { ok: true; target: Target } | { ok: false; error: string };

export const DEFAULT_BASE_URLS = {
  telegram: 'https://api.telegram.org',
  discord: 'https://discord.com',
  slack: 'https://hooks.slack.com',
  pushover: 'https://api.pushover.net',
  ntfy: 'https://ntfy.sh',
} as const;
