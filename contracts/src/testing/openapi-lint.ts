/**
 * `redocly lint` (the recommended rules of the repository's redocly.yaml) over a service's rendered
 * OpenAPI document: the same check a client generator's user would run, so a document that lints
 * cleanly here is one mainstream tools take as it is.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
/** The repository root: the lint configuration lives beside the root package.json. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface LintResult {
  /** Problems of severity error; 0 is the bar. */
  errors: number;
  warnings: number;
  /** Redocly's own report, for the failure message. */
  report: string;
}

interface Problem {
  severity: 'error' | 'warn';
  ruleId: string;
  message: string;
  location?: Array<{ pointer?: string }>;
}

export async function redoclyLint(doc: unknown): Promise<LintResult> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc, null, 2));
    const cli = require.resolve('@redocly/cli/bin/cli.js');
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
        // No telemetry and no update check: tests talk only to loopback.
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 64 << 20,
        },
        (err, stdout, stderr) => {
          // Exit 1 means problems were found; the JSON report is still on stdout.
          if (stdout.trim().startsWith('{')) resolve(stdout);
          else reject(new Error(`redocly lint failed to run: ${err?.message ?? ''}\n${stderr}`));
        },
      );
    });
    const { problems } = JSON.parse(out) as { problems: Problem[] };
    const lines = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`,
    );
    return {
      errors: problems.filter((p) => p.severity === 'error').length,
      warnings: problems.filter((p) => p.severity === 'warn').length,
      report: lines.join('\n'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
