import { afterEach, describe, expect, it, vi } from 'vitest';
import { consoleUrl } from '../../src/ha/console-url.js';

afterEach(() => vi.unstubAllEnvs());

describe("Home Assistant's link to the console", () => {
  it('is http:// on a plain listener', () => {
    vi.stubEnv('TLS_CERT_FILE', '');
    vi.stubEnv('TLS_KEY_FILE', '');
    expect(consoleUrl({ host: '192.0.2.4', port: 8000 })).toBe('http://192.0.2.4:8000');
  });

  it('is https:// when the gateway serves TLS', () => {
    vi.stubEnv('TLS_CERT_FILE', '/etc/outpost/cert.pem');
    vi.stubEnv('TLS_KEY_FILE', '/etc/outpost/key.pem');
    expect(consoleUrl({ host: '192.0.2.4', port: 8000 })).toBe('https://192.0.2.4:8000');
    expect(consoleUrl({ host: '::1', port: 8443, tls: true })).toBe('https://[::1]:8443');
    expect(consoleUrl({ configured: 'https://outpost.example', host: '0.0.0.0', port: 8000 })).toBe(
      'https://outpost.example',
    );
  });
});
