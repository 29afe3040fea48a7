import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a running launcher tells the tools beside it (`npm run join-token`): where its embedded
 * broker listens, since a taken default port moves. Removed when the launcher stops. Written here
 * without zod, which the launcher does not load; read back, and checked, in run-file-read.ts.
 */
export const RUN_FILE_NAME = 'run.json';

export interface RunInfo {
  pid: number;
  broker?: {
    host: string;
    port: number;
    ws_port: number;
    /** MQTTS, when the launcher runs TLS; the plain port then listens on loopback only. */
    tls_port?: number;
  };
}

export function writeRunFile(dataDir: string, info: RunInfo): void {
  writeFileSync(join(dataDir, RUN_FILE_NAME), `${JSON.stringify(info)}\n`, { mode: 0o644 });
}

export function removeRunFile(dataDir: string): void {
  rmSync(join(dataDir, RUN_FILE_NAME), { force: true });
}
