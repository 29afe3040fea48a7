/**
 * `--join-file PATH` (or `--join-file -`: standard input) for the launcher: the join string is read
 * here, so it never sits in the launcher's command line (/proc/<pid>/cmdline, `ps`) for its whole life
 * as `--join <string>` does. The string goes on to the launch plan over IPC, never as an argument.
 */
import { readFileSync } from 'node:fs';

/** A join string is a few hundred bytes; more is not one (and is not read into memory). */
const MAX_JOIN_BYTES = 64 * 1024;

export class JoinFileError extends Error {
  override name = 'JoinFileError';
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (text.length > MAX_JOIN_BYTES)
      throw new JoinFileError('--join-file -: standard input is too long for a join string');
  }
  return text;
}

function readPath(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new JoinFileError(
      `--join-file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (text.length > MAX_JOIN_BYTES)
    throw new JoinFileError(`--join-file ${path}: too long for a join string`);
  return text;
}

/**
 * The launcher's arguments with `--join-file X` (or `--join-file=X`) replaced by `--join=<its text>`,
 * trimmed; anything else unchanged. An empty file is refused, as an empty `--join` is.
 */
export async function resolveJoinFile(
  argv: string[],
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    let path: string | undefined;
    if (a === '--join-file') {
      path = argv[++i];
      if (!path)
        throw new JoinFileError('--join-file needs a file holding the join string, or - for standard input');
    } else if (a.startsWith('--join-file=')) path = a.slice('--join-file='.length);
    else {
      out.push(a);
      continue;
    }
    const text = (path === '-' ? await readStdin(stdin) : readPath(path)).trim();
    if (!text) throw new JoinFileError(`--join-file ${path}: no join string in it`);
    out.push(`--join=${text}`);
  }
  return out;
}
