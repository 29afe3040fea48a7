import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * What a running launcher tells the tools beside it (`npm run join-token`): where its embedded
 * broker listens, since a taken default port moves. Removed when the launcher stops.
 */
export const RUN_FILE_NAME = 'run.json';

const RunInfo = z.object({
  pid: z.number().int(),
  broker: z
    .object({
      host: z.string(),
      port: z.number().int(),
      ws_port: z.number().int(),
      /** MQTTS, when the launcher runs TLS; the plain port then listens on loopback only. */
      tls_port: z.number().int().optional(),
    })
    .optional(),
});
export type RunInfo = z.infer<typeof RunInfo>;

export function writeRunFile(dataDir: string, info: RunInfo): void {
  writeFileSync(join(dataDir, RUN_FILE_NAME), `${JSON.stringify(info)}\n`, { mode: 0o644 });
}

export function removeRunFile(dataDir: string): void {
  rmSync(join(dataDir, RUN_FILE_NAME), { force: true });
}

/** The run file of a launcher that is still alive, or null. */
export function readRunFile(dataDir: string): RunInfo | null {
  const path = join(dataDir, RUN_FILE_NAME);
  if (!existsSync(path)) return null;
  try {
    const info = RunInfo.parse(JSON.parse(readFileSync(path, 'utf8')));
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}
