import { type Clock, ManualClock } from '@outpost/runtime';
import { type RunningSimulator, startSimulator } from '../../src/app.js';
import { parseSimulatorConfig } from '../../src/config.js';
import { silentLogger } from './log.js';

export const TEST_USER = 'pilot';
export const TEST_PASSWORD = 'correct horse battery';

/** Environment every test simulator starts from: loopback only, free ports, known credentials. */
export const BASE_ENV: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  LISTEN_HOST: '127.0.0.1',
  USERNAME: TEST_USER,
  PASSWORD: TEST_PASSWORD,
  EFB_BROADCAST_ADDRESS: '127.255.255.255',
  LOG_LEVEL: 'silent',
};

export interface TestSim extends RunningSimulator {
  clock: Clock;
  api: Api;
}

export async function startTestSim(
  env: Record<string, string> = {},
  opts: { clock?: Clock; devRoot?: string; login?: boolean } = {},
): Promise<TestSim> {
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const config = parseSimulatorConfig({ ...BASE_ENV, ...env }, () => 'generated-password');
  const sim = await startSimulator({
    config,
    logger: silentLogger,
    clock,
    devices: { devRoot: opts.devRoot ?? '/nonexistent-dev-root', enumerate: async () => [] },
  });
  const api = new Api(sim.url);
  if (opts.login !== false) await api.login();
  return Object.assign(sim, { clock, api });
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** A REST client with one cookie jar slot, like a browser tab. */
export class Api {
  cookie: string | null = null;
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? null : pair;
    }
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
  }

  get<T = Record<string, unknown>>(path: string) {
    return this.request<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }

  async login(username = TEST_USER, password = TEST_PASSWORD) {
    return this.post('/api/auth/login', { username, password });
  }

  /** POSTs and insists on 200, so a setup step that silently failed cannot pass a test. */
  async ok(path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await this.post(path, body);
    if (res.status !== 200) throw new Error(`${path} -> ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}
