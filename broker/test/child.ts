import { type ChildProcess, spawn } from 'node:child_process';
import { MAIN } from './build.js';
import { onCleanup } from './helpers.js';

export interface BrokerProcess {
  proc: ChildProcess;
  url: string;
  wsUrl: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function exited(proc: ChildProcess): Promise<number | null> {
  // A process ended by a signal keeps exitCode null: signalCode says it is gone.
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

/** Runs `node dist/main.js` with `env` until it prints its ready line. */
export function startBrokerProcess(env: Record<string, string>): Promise<BrokerProcess> {
  const proc = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      MQTT_HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    out += d;
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited(proc);
  };
  onCleanup(() => stop('SIGKILL'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker process not ready:\n${out}`)), 8000);
    const onData = () => {
      const m = /MQTT broker listening on mqtt:\/\/([^\s]+) and ws:\/\/([^\s]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      resolve({ proc, url: `mqtt://${m[1]}`, wsUrl: `ws://${m[2]}`, output: () => out, stop });
    };
    proc.stdout?.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`broker process exited with ${code}:\n${out}`), { code, output: out }));
    });
  });
}

/** Runs main.js expecting it to refuse to start; resolves with its exit code and output. */
export function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return startBrokerProcess(env).then(
    async (p) => {
      await p.stop('SIGKILL');
      throw new Error(`broker started but should have refused:\n${p.output()}`);
    },
    (err: { code?: number | null; output?: string }) => ({
      code: err.code ?? null,
      output: err.output ?? '',
    }),
  );
}
