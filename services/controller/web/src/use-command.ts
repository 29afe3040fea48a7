import { api } from './api.js';
import { useAction } from './feedback.js';

/** Generator commands: each reads the generator state again afterwards, whether the server took it or not. */
export function useCommand(refresh: () => Promise<void>) {
  const act = useAction();
  const command = <T>(fn: () => Promise<T>, ok: string | ((result: T) => string)) =>
    act.run(async () => {
      try {
        return await fn();
      } finally {
        await refresh();
      }
    }, ok);
  const post = (path: string, body: unknown, ok: string) =>
    command(() => api(path, { method: 'POST', body }), ok);
  return { act, command, post };
}
