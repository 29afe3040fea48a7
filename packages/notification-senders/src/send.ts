import { sendEmail } from './email.js';
import {
  sendDiscord,
  sendJson,
  sendNtfy,
  sendPushover,
  sendSlack,
  sendTelegram,
  sendWebhook,
} from './http-senders.js';
import type { Message, SendOptions, SendResult, Target } from './types.js';

/** Delivers one message to one target. Never throws for a delivery problem; the result says what went wrong. */
export async function send(target: Target, message: Message, opts: SendOptions): Promise<SendResult> {
  try {
    switch (target.kind) {
      case 'json':
        return await sendJson(target, message, opts);
      case 'telegram':
        return await sendTelegram(target, message, opts);
      case 'discord':
        return await sendDiscord(target, message, opts);
      case 'slack':
        return await sendSlack(target, message, opts);
      case 'pushover':
        return await sendPushover(target, message, opts);
      case 'ntfy':
        return await sendNtfy(target, message, opts);
      case 'email':
        return await sendEmail(target, message, opts);
      case 'webhook':
        return await sendWebhook(target, message, opts);
    }
  } catch (err) {
    // A bug or an unexpected library error: reported, not thrown, and without the target's secrets.
    return { ok: false, error: `${target.kind}: ${(err as Error)?.name ?? 'Error'}`, retryable: true };
  }
}

/**
 * Delivers to every target (all are tried even when one fails). Success only when all succeed; the
 * error lists each failure by position, and it is retryable when any failure is.
 */
export async function sendAll(targets: Target[], message: Message, opts: SendOptions): Promise<SendResult> {
  const results = await Promise.all(targets.map((t) => send(t, message, opts)));
  const failures = results
    .map((r, i) => ({ r, i }))
    .filter((x): x is { r: Extract<SendResult, { ok: false }>; i: number } => !x.r.ok);
  if (failures.length === 0) return { ok: true };
  const error =
    targets.length === 1
      ? failures[0]!.r.error
      : failures.map(({ r, i }) => `#${i + 1} ${r.error}`).join('; ');
  return { ok: false, error, retryable: failures.some(({ r }) => r.retryable) };
}
