/**
 * A client generated from a service's OpenAPI document with a mainstream generator
 * (openapi-typescript for the types, openapi-fetch for the calls), compiled by tsc in strict mode
 * against one call the test names. Generated at test time into a temporary folder, so the check is
 * always against the document the service serves now and no generated file can go stale in the tree.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';

const require = createRequire(import.meta.url);

export interface ClientCall {
  /** An operation of the document, e.g. `GET` and `/api/relay/state`. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** TypeScript for the call's options argument, e.g. `{ params: { path: { id: 1 } } }`; `{}` when none. */
  init?: string;
  /** A field of the success body the caller reads, which must be typed. */
  field: string;
}

export interface CompileResult {
  ok: boolean;
  /** tsc's report on failure. */
  report: string;
  /** The generated types, for a failure message. */
  types: string;
}

/** Generates the types, writes a caller of `call`, and type-checks both with tsc. */
export async function compileGeneratedClient(doc: unknown, call: ClientCall): Promise<CompileResult> {
  const types = astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
  const dir = await mkdtemp(join(tmpdir(), 'outpost-client-'));
  try {
    await writeFile(join(dir, 'schema.ts'), types);
    await writeFile(
      join(dir, 'client.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './schema.js';",
        "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });",
        'export async function call() {',
        `  const { data, error } = await client.${call.method}('${call.path}', ${call.init ?? '{}'});`,
        '  if (error !== undefined || data === undefined) return undefined;',
        `  return data.${call.field};`,
        '}',
        '',
      ].join('\n'),
    );
    const fetchTypes = dirname(require.resolve('openapi-fetch/package.json'));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: [],
          lib: ['ES2022', 'DOM'],
          baseUrl: '.',
          paths: { 'openapi-fetch': [join(fetchTypes, 'dist/index.d.mts')] },
        },
        files: ['client.ts', 'schema.ts'],
      }),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    const report = await new Promise<string | null>((resolve) => {
      execFile(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], (err, stdout, stderr) =>
        resolve(err ? `${stdout}${stderr}` : null),
      );
    });
    return { ok: report === null, report: report ?? '', types };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
