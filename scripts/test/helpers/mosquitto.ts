import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, portOpen, root, until } from './processes.js';

const infra = join(root, 'infra');
const found = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const haveMosquitto = found('mosquitto') && found('mosquitto_passwd');

export interface Mosquitto {
  url: string;
  port: number;
  proc: ChildProcess;
  stop: () => void;
}

/**
 * Writes a Mosquitto config set up the way infra/ tells an operator to: its config and ACL, and a
 * password file written by make-passwd.sh from the accounts in dataDir/secrets.json. Listeners bind
 * `bind` (loopback unless given; '' for every address of the host).
 */
export function mosquittoConf(
  dir: string,
  dataDir: string,
  ports: { port: number; wsPort: number },
  bind = '127.0.0.1',
): string {
  const passwd = join(dir, 'passwd');
  const made = spawnSync('sh', [join(infra, 'mosquitto/make-passwd.sh'), dataDir, passwd], {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`make-passwd.sh failed: ${made.stderr}`);
  chmodSync(passwd, 0o600);
  const at = bind ? ` ${bind}` : '';
  const conf = readFileSync(join(infra, 'mosquitto/conf.d/outpost.conf'), 'utf8')
    .replace(/^password_file .*$/m, `password_file ${passwd}`)
    .replace(/^acl_file .*$/m, `acl_file ${join(infra, 'mosquitto/acl')}`)
    .replace(/^listener 1883$/m, `listener ${ports.port}${at}`)
    .replace(/^listener 9001$/m, `listener ${ports.wsPort}${at}`);
  const confPath = join(dir, 'mosquitto.conf');
  // $SYS every second so the dashboard's broker figures show up within a test.
  writeFileSync(
    confPath,
    `${conf}\npersistence false\nsys_interval 1\n${process.getuid?.() === 0 ? 'user root\n' : ''}`,
  );
  return confPath;
}

/** A Mosquitto of its own on loopback (see mosquittoConf). */
export async function startMosquitto(dir: string, dataDir: string): Promise<Mosquitto> {
  const [port, wsPort] = [await freePort(), await freePort()];
  const confPath = mosquittoConf(dir, dataDir, { port, wsPort });
  let out = '';
  const proc = spawn('mosquitto', ['-c', confPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  await until('mosquitto to listen', async () => {
    if (proc.exitCode !== null) throw new Error(`mosquitto exited: ${out}`);
    return portOpen(port);
  }).catch((err) => {
    throw new Error(`${(err as Error).message}: ${out}`);
  });
  return { url: `mqtt://127.0.0.1:${port}`, port, proc, stop: () => proc.kill('SIGTERM') };
}
