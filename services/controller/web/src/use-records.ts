import { api } from './api.js';
import { useAction, useLoad } from './feedback.js';

/**
 * A list the server keeps at `path` (GET lists it, POST adds to it, PUT and DELETE on `path/id` change
 * one entry), with one action at a time. A change that succeeds reads the list again.
 */
export function useRecords<T extends { id: number; enabled: boolean }>(path: string) {
  const list = useLoad(() => api<T[]>(path));
  const act = useAction();
  const change = <R>(fn: () => Promise<R>, ok?: string | ((result: R) => string)) =>
    act.run(async () => {
      const result = await fn();
      list.reload();
      return result;
    }, ok);
  const toggle = (r: T, ok: string) =>
    void change(() => api(`${path}/${r.id}`, { method: 'PUT', body: { enabled: !r.enabled } }), ok);
  const remove = (r: T, question: string, ok: string) => {
    if (!confirm(question)) return;
    void change(() => api(`${path}/${r.id}`, { method: 'DELETE' }), ok);
  };
  return { list, act, change, toggle, remove };
}

export type Records<T extends { id: number; enabled: boolean }> = ReturnType<typeof useRecords<T>>;
