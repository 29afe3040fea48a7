import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ConfigError, parseConfig } from '../src/config.js';
import { metricsAuthFromEnv, metricsEnvShape } from '../src/metrics-auth.js';
import { z } from 'zod';

const TOKEN = 'scrape-token-0123456789';
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function appWith(env: Record<string, string>) {
  const e = parseConfig(z.object(metricsEnvShape), env);
  return createApp({
    service: 'demo',
    version: '1',
    logger: pino({ level: 'silent' }),
    metricsAuth: metricsAuthFromEnv(e),
  });
}
const scrape = (app: ReturnType<typeof appWith>, authorization?: string) =>
  app.request('/metrics', { headers: authorization ? { authorization } : {} });

describe('/metrics credentials (security)', () => {
  it('is open by default, so the provisioned Prometheus keeps scraping', async () => {
    const res = await scrape(appWith({}));
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/process_cpu_user_seconds_total/);
  });

  it('METRICS_TOKEN: only the bearer token scrapes; the refusal is 401 {detail} with a Bearer challenge', async () => {
    const app = appWith({ METRICS_TOKEN: TOKEN });
    const none = await scrape(app);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toEqual({ detail: expect.stringMatching(/METRICS_TOKEN/) });
    const wrong = await scrape(app, 'Bearer not-the-token-at-all');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toMatch(/process_cpu/);
    // Another scheme is a malformed bearer header to Hono: 400, still no metrics.
    expect((await scrape(app, basic('prometheus', TOKEN))).status).toBe(400);
    const ok = await scrape(app, `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/process_cpu_user_seconds_total/);
    // Nothing else changes: health and the documents stay as they were.
    expect((await app.request('/health')).status).toBe(200);
    expect((await app.request('/api/openapi.json')).status).toBe(200);
  });

  it('METRICS_BASIC_AUTH: only the pair scrapes, with a Basic challenge', async () => {
    const app = appWith({ METRICS_BASIC_AUTH: 'prometheus:long-enough-secret' });
    const none = await scrape(app);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="metrics"/);
    expect((await scrape(app, basic('prometheus', 'wrong-password-xx'))).status).toBe(401);
    expect((await scrape(app, basic('grafana', 'long-enough-secret'))).status).toBe(401);
    expect((await scrape(app, `Bearer ${TOKEN}`)).status).toBe(401);
    expect((await scrape(app, basic('prometheus', 'long-enough-secret'))).status).toBe(200);
  });

  it('both set: either credential scrapes', async () => {
    const app = appWith({ METRICS_TOKEN: TOKEN, METRICS_BASIC_AUTH: 'prometheus:long-enough-secret' });
    expect((await scrape(app)).status).toBe(401);
    expect((await scrape(app, `Bearer ${TOKEN}`)).status).toBe(200);
    expect((await scrape(app, basic('prometheus', 'long-enough-secret'))).status).toBe(200);
    expect((await scrape(app, basic('prometheus', TOKEN))).status).toBe(401);
  });

  it('a weak or malformed setting stops the start naming the variable', () => {
    const schema = z.object(metricsEnvShape);
    expect(() => parseConfig(schema, { METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => parseConfig(schema, { METRICS_TOKEN: 'has spaces in the token!!' })).toThrow(
      /METRICS_TOKEN/,
    );
    expect(() => parseConfig(schema, { METRICS_BASIC_AUTH: 'nopassword' })).toThrow(/METRICS_BASIC_AUTH/);
    expect(() => parseConfig(schema, { METRICS_BASIC_AUTH: 'user:short' })).toThrow(/METRICS_BASIC_AUTH/);
  });
});
