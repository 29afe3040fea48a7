import { useEffect, useState } from 'preact/hooks';
import { useAction, useLoad } from './feedback.js';

/**
 * A settings form over one server resource: loads it, keeps an editable draft of it (taken afresh
 * after every load) and saves the draft as one action, then loads again.
 */
export function useDraft<T, D>({
  load,
  draftOf,
  store,
  saved,
}: {
  load: () => Promise<T>;
  draftOf: (data: T) => D;
  store: (draft: D) => Promise<unknown>;
  saved: string;
}) {
  const loaded = useLoad(load);
  const act = useAction();
  const [draft, setDraft] = useState<D | null>(null);
  useEffect(() => {
    if (loaded.data) setDraft(draftOf(loaded.data));
  }, [loaded.data]);
  const save = (e: Event) => {
    e.preventDefault();
    if (draft === null) return;
    void act.run(async () => {
      await store(draft);
      loaded.reload();
    }, saved);
  };
  return { loaded, act, draft, setDraft, save };
}
