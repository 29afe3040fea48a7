import type { ComponentChildren } from 'preact';
import { toneClass } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api, session } from './api.js';
import { Login } from './login.js';
import { PAGES, type PageId, usePage } from './pages.js';
import { StatusPage } from './status-page.js';
import { useGenerator } from './use-generator.js';

type Auth = { state: 'out'; error?: string } | { state: 'in'; username: string };

/**
 * The controller rate-limits /api/auth/* to a few calls a minute, so a page load does not ask it who
 * the token belongs to: the name is read from the token, and the first state poll proves the token
 * (a 401 there brings the login form back).
 */
function signedIn(): Auth {
  const token = session.token;
  return token ? { state: 'in', username: tokenSubject(token) ?? 'signed in' } : { state: 'out' };
}

function tokenSubject(token: string): string | null {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
}

export function App() {
  const [auth, setAuth] = useState<Auth>(signedIn);

  useEffect(() => {
    session.onExpired((message) =>
      setAuth({ state: 'out', error: message ?? 'Your session has ended; log in again' }),
    );
    return () => session.onExpired(null);
  }, []);

  if (auth.state === 'out') return <Login initialError={auth.error} onLogin={() => setAuth(signedIn())} />;
  const logout = async () => {
    await api('/api/auth/logout', { method: 'POST' }).catch(() => {});
    session.clear();
    setAuth({ state: 'out' });
  };
  return <Console username={auth.username} onLogout={logout} />;
}

function Console({ username, onLogout }: { username: string; onLogout: () => void }) {
  const gen = useGenerator();
  const [page] = usePage();
  const s = gen.state;
  const right = (
    <>
      <span
        class={gen.error ? 'conn conn-closed' : 'conn conn-open'}
        data-testid="conn"
        title="Polling the controller every second"
      >
        {gen.error ? 'no answer' : 'live'}
      </span>
      {s ? (
        <span class={toneClass(s.running ? 'running' : 'idle')} data-testid="run-state">
          {s.running ? 'running' : 'idle'}
        </span>
      ) : null}
      <span class="muted">{username}</span>
      <button type="button" onClick={onLogout}>
        Log out
      </button>
    </>
  );
  return (
    <>
      <header class="topbar">
        <h1>Generator</h1>
        <div class="topbar-right">{right}</div>
      </header>
      <Tabs current={page} />
      <main class="content">
        <PageBody page={page}>{page === 'status' ? <StatusPage gen={gen} /> : null}</PageBody>
      </main>
    </>
  );
}

function Tabs({ current }: { current: PageId }) {
  return (
    <nav class="tabs" aria-label="Pages">
      {PAGES.map((p) => (
        <a key={p.id} href={`#/${p.id}`} aria-current={p.id === current ? 'page' : undefined}>
          {p.title}
        </a>
      ))}
    </nav>
  );
}

function PageBody({ page, children }: { page: PageId; children: ComponentChildren }) {
  if (page === 'status') return <>{children}</>;
  const P = PAGES.find((p) => p.id === page)?.component;
  return P ? <P /> : null;
}
