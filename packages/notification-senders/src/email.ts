import type { Message, SendOptions, SendResult, Target } from './types.js';

type EmailTarget = Extract<Target, { kind: 'email' }>;

/** Plain-text mail over SMTP: subject is the title, text is the body. */
export async function sendEmail(t: EmailTarget, m: Message, opts: SendOptions): Promise<SendResult> {
  const refused = opts.outbound ? await opts.outbound(t.host) : null;
  if (refused) return { ok: false, error: `email: ${refused}`, retryable: false };
  // Loaded at the first mail: nodemailer is about 40 modules that a service with no email channel
  // would otherwise keep in memory for nothing.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: t.host,
    port: t.port,
    secure: t.secure,
    requireTLS: t.requireTls,
    auth: t.username ? { user: t.username, pass: t.password ?? '' } : undefined,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    // One message per transport: a pool would outlive the call.
    pool: false,
  });
  try {
    await transport.sendMail({
      from: t.from,
      to: t.to,
      subject: m.title.replace(/[\r\n]+/g, ' '),
      text: m.body,
    });
    return { ok: true };
  } catch (err) {
    const e = err as { code?: string; responseCode?: number; message?: string };
    // 5xx SMTP replies and refused credentials are permanent; connection trouble and 4xx are not.
    const retryable = e.code === 'EAUTH' ? false : e.responseCode ? e.responseCode < 500 : true;
    const reason = e.responseCode
      ? `SMTP ${e.responseCode} ${firstLine(e.message)}`
      : (e.code ?? firstLine(e.message));
    return { ok: false, error: `email: ${reason}`, retryable };
  } finally {
    transport.close();
  }
}

function firstLine(text: string | undefined): string {
  return (text ?? 'send failed').split('\n')[0]!.slice(0, 200);
}
