import { Banner, errorText } from '@outpost/ui';
import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Note {
  kind: 'error' | 'ok';
  text: string;
}

/**
 * Runs one user action at a time and keeps its outcome: the server's `detail` when it refused,
 * or a short confirmation. `busy` disables the form while the call is in flight.
 */
export function useAction() {
  const [note, setNote] = useState<Note | null>(null);
  const [busy, setBusy] = useState(false);
  /** `ok` may be worked out from what `fn` returned, e.g. a server's note about what it also did. */
  const run = useCallback(
    async <T,>(fn: () => Promise<T>, ok?: string | ((result: T) => string)): Promise<boolean> => {
      setBusy(true);
      try {
        const result = await fn();
        const text = typeof ok === 'function' ? ok(result) : ok;
        setNote(text ? { kind: 'ok', text } : null);
        return true;
      } catch (err) {
        setNote({ kind: 'error', text: errorText(err) });
        return false;
      } finally {
        setBusy(false);
      }
    },
    [],
  );
  return { note, busy, run, clear: () => setNote(null) };
}

export function Feedback({
  note,
  onClose,
  testid,
}: {
  note: Note | null;
  onClose: () => void;
  testid?: string;
}) {
  if (!note) return null;
  return (
    <div data-testid={testid}>
      <Banner kind={note.kind} onClose={onClose}>
        {note.text}
      </Banner>
    </div>
  );
}

/** Loads `fn` on mount and whenever `reload()` is called; the error is the server's detail. */
export function useLoad<T>(fn: () => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [n, setN] = useState(0);
  const reload = useCallback(() => setN((x) => x + 1), []);
  useLoadEffect(fn, n, setData, setError);
  return { data, error, reload };
}

function useLoadEffect<T>(
  fn: () => Promise<T>,
  n: number,
  setData: (v: T) => void,
  setError: (v: string | null) => void,
): void {
  // Runs again only when reload() bumps n: fn is the one from that render.
  useEffect(() => {
    let live = true;
    fn().then(
      (v) => {
        if (live) {
          setData(v);
          setError(null);
        }
      },
      (err) => {
        if (live) setError(errorText(err));
      },
    );
    return () => {
      live = false;
    };
  }, [n]);
}
