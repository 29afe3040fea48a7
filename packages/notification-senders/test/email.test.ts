import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelTargets, parseNotifierUrl, send } from '../src/index.js';
import { type SmtpPeer, startSmtpPeer } from '../src/testing.js';

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp?.close());

const msg = { title: 'Generator stopped', body: 'Ran 1h 05m; used 2.40 gal' };

describe('email over SMTP (aiosmtpd)', () => {
  it('mailto:// delivers from/to/subject/body', async () => {
    const parsed = parseNotifierUrl(`mailto://127.0.0.1:${smtp.port}?from=gen@site.test&to=ops@site.test`);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(await send(parsed.target, msg, { timeoutMs: 3000 })).toEqual({ ok: true });
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({
      mail_from: 'gen@site.test',
      rcpt_tos: ['ops@site.test'],
      subject: msg.title,
    });
    expect(mail!.body.trim()).toBe(msg.body);
  });

  it('typed email config authenticates with username/password', async () => {
    const r = channelTargets('email', {
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      username: 'alerts',
      password: 'secret',
      from_email: 'alerts@site.test',
      to_emails: ['a@site.test', 'b@site.test'],
      // The test server speaks plain SMTP only.
      require_tls: false,
    });
    if (!r.ok) throw new Error(r.error);
    expect(await send(r.targets[0]!, msg, { timeoutMs: 3000 })).toEqual({ ok: true });
    const mails = await smtp.waitFor(2);
    expect(mails[1]).toMatchObject({
      mail_from: 'alerts@site.test',
      rcpt_tos: ['a@site.test', 'b@site.test'],
      from: 'alerts@site.test',
      to: 'a@site.test, b@site.test',
      subject: msg.title,
      login: 'alerts',
    });
  });

  it('a wrong password is a permanent failure', async () => {
    const r = channelTargets('email', {
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      username: 'alerts',
      password: 'wrong',
      from_email: 'alerts@site.test',
      to_emails: ['a@site.test'],
      require_tls: false,
    });
    if (!r.ok) throw new Error(r.error);
    const res = await send(r.targets[0]!, msg, { timeoutMs: 3000 });
    expect(res).toMatchObject({ ok: false, retryable: false });
    if (!res.ok) expect(res.error).toMatch(/^email: /);
    expect(JSON.stringify(res)).not.toContain('wrong');
  });

  it('requires STARTTLS unless the channel says otherwise: a plain server gets neither the password nor the mail', async () => {
    const before = smtp.messages().length;
    const r = channelTargets('email', {
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      username: 'alerts',
      password: 'secret',
      from_email: 'alerts@site.test',
      to_emails: ['a@site.test'],
    });
    if (!r.ok) throw new Error(r.error);
    const res = await send(r.targets[0]!, msg, { timeoutMs: 3000 });
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error).toMatch(/^email: /);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.messages().length).toBe(before);
  });
});
