import { fork } from 'node:child_process';

/**
 * Work the launcher does once at start-up (reading the configuration, provisioning PostgreSQL) runs in
 * a short-lived child process, so the libraries it needs (zod, the PostgreSQL client, the certificate
 * code) are never loaded into the launcher, which stays resident for as long as the stack runs.
 */

type Reply<O> = { ok: true; value: O } | { ok: false; error: string };

export class OneShotError extends Error {
  override name = 'OneShotError';
}

/** Runs `script` with `input`; resolves its value, or rejects with the one line it gave as its error. */
export function runOneShot<I, O>(script: string, input: I): Promise<O> {
  return new Promise((resolve, reject) => {
    // stdout and stderr are the launcher's own: what the child prints appears in order with the rest.
    const child = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let reply: Reply<O> | undefined;
    child.once('message', (msg) => {
      reply = msg as Reply<O>;
    });
    child.once('error', (err) => reject(new OneShotError(`${script}: ${err.message}`)));
    child.once('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.value);
      else if (reply) reject(new OneShotError(reply.error));
      else reject(new OneShotError(`${script} exited (${signal ?? `code ${code}`}) without an answer`));
    });
    child.send(input as object);
  });
}

/**
 * The child's side: takes the one input message, runs `work`, answers and exits. An error that
 * `isExpected` accepts is answered with its message; anything else with its stack, as a bug.
 */
export function serveOneShot<I, O>(
  work: (input: I) => Promise<O>,
  isExpected: (err: unknown) => boolean,
): void {
  process.once('message', (input) => {
    const answer = (reply: Reply<O>) => process.send?.(reply, () => process.exit(reply.ok ? 0 : 1));
    work(input as I).then(
      (value) => answer({ ok: true, value }),
      (err: unknown) =>
        answer({
          ok: false,
          error: isExpected(err) ? (err as Error).message : String((err as Error)?.stack ?? err),
        }),
    );
  });
}
