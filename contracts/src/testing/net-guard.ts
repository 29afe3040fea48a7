/**
 * Fuzzed configuration can name a host (a webhook URL, an SMTP server, a UDP target). The generators
 * only produce loopback ones; this guard makes sure of it for the whole test process: a fetch, TCP
 * connect, UDP send or DNS query for anything but loopback is refused (redirected to a closed
 * loopback port) and recorded, and the test asserts the record is empty.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\]|::ffff:127\.\d+\.\d+\.\d+|0\.0\.0\.0|::)$/i;
const isLoopback = (host: string) => host === '' || LOOPBACK.test(host);

export interface NetGuard {
  /** Every refused destination, as "kind host". */
  readonly refused: string[];
  restore(): void;
}

type AnyFn = (...args: unknown[]) => unknown;

export function installNetGuard(): NetGuard {
  const refused: string[] = [];
  const undo: Array<() => void> = [];
  const patch = <T extends object>(obj: T, name: string, make: (orig: AnyFn) => AnyFn) => {
    const rec = obj as Record<string, AnyFn>;
    const orig = rec[name] as AnyFn;
    if (typeof orig !== 'function') return;
    rec[name] = make(orig);
    undo.push(() => {
      rec[name] = orig;
    });
  };

  patch(globalThis, 'fetch', (orig) => (input: unknown, init?: unknown) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!isLoopback(url.hostname)) {
      refused.push(`fetch ${url.host}`);
      return Promise.reject(new TypeError(`fetch failed: ${url.host} is not loopback (test guard)`));
    }
    return orig(input, init);
  });

  patch(
    net.Socket.prototype,
    'connect',
    (orig) =>
      function (this: net.Socket, ...args: unknown[]) {
        const first = args[0];
        if (first && typeof first === 'object' && !Array.isArray(first)) {
          const opts = first as { host?: string; port?: number; path?: string };
          if (!opts.path && opts.host && !isLoopback(opts.host)) {
            refused.push(`tcp ${opts.host}:${opts.port}`);
            args[0] = { ...opts, host: '127.0.0.1', port: 9 };
          }
        } else if (typeof first === 'number' && typeof args[1] === 'string' && !isLoopback(args[1])) {
          refused.push(`tcp ${args[1]}:${first}`);
          args[0] = 9;
          args[1] = '127.0.0.1';
        }
        return orig.apply(this, args);
      },
  );

  for (const name of ['send', 'connect']) {
    patch(
      dgram.Socket.prototype,
      name,
      (orig) =>
        function (this: dgram.Socket, ...args: unknown[]) {
          // The message itself may be a string: only later string arguments are addresses.
          for (let i = name === 'send' ? 1 : 0; i < args.length; i++) {
            const a = args[i];
            if (typeof a === 'string' && !isLoopback(a)) {
              refused.push(`udp ${a}`);
              args[i] = '127.0.0.1';
            }
          }
          return orig.apply(this, args);
        },
    );
  }

  const refuseName = (kind: string) => (orig: AnyFn) =>
    function (this: unknown, host: unknown, ...rest: unknown[]) {
      if (typeof host === 'string' && !isLoopback(host)) {
        refused.push(`dns ${host}`);
        const cb = rest.findLast((r) => typeof r === 'function') as AnyFn | undefined;
        const err = Object.assign(new Error(`${kind} ${host}: refused by the test guard`), {
          code: 'ENOTFOUND',
        });
        if (cb) {
          process.nextTick(() => cb(err));
          return undefined;
        }
        return Promise.reject(err);
      }
      return orig.call(this, host, ...rest);
    };
  for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6']) {
    patch(dns, name, refuseName(name));
    patch(dns.promises, name, refuseName(name));
    patch(dns.Resolver.prototype, name, refuseName(name));
    patch(dns.promises.Resolver.prototype, name, refuseName(name));
  }

  return {
    refused,
    restore: () => {
      for (const u of undo.reverse()) u();
    },
  };
}
