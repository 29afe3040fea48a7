import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RUN_FILE_NAME, type RunInfo } from './run-file.js';

const RunInfoFile = z.object({
  pid: z.number().int(),
  broker: z
    .object({
      host: z.string(),
      port: z.number().int(),
      ws_port: z.number().int(),
      tls_port: z.number().int().optional(),
    })
    .optional(),
}) satisfies z.ZodType<RunInfo>;

/** The run file of a launcher that is still alive, or null. */
export function readRunFile(dataDir: string): RunInfo | null {
  const path = join(dataDir, RUN_FILE_NAME);
  if (!existsSync(path)) return null;
  try {
    const info = RunInfoFile.parse(JSON.parse(readFileSync(path, 'utf8')));
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}
