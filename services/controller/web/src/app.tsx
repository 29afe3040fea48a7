import { ApiError, AppShell, errorText } from '@outpost/ui';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, session } from './api.js';
import { Login } from './login.js';
import { PAGES, type PageId, usePage } from './pages.js';
import { StatusPage } from './status-page.js';
import { useGenerator } from './use-generator.js';

type Auth = { state: 'checking' } | { state: 'out'; error?: string } | { state: 'in'; username: string };

export function App() {
  const [auth, setAuth] = useState<Auth>(() => (session.token ? { state: 'checking' } : { state: 'out' }));

  const check = () =>
    api<{ username: string }>('/api/auth/me')
      .then((r) => setAuth({ state: 'in', username: r.username }))
      .catch((err) =>
        setAuth(err instanceof ApiError && err.status === 401 ? { state: 'out' } : { state: 'out', error: errorText(err) }),
      );

  useEffect(() => {
    session.onExpired(() => setAuth({ state: 'out', error: 'Your session has ended; log in again' }));
    if (session.token) void check();
    return () => session.onExpired(null);
    // biome-ignore lint/correctness/useExhaustiveDependencies: once per page load
  }, []);

  if (auth.state === 'checking') return <AppShell title="Generator">{null}</AppShell>;
  if (auth.state === 'out') return <Login initialError={auth.error} onLogin={() => void check()} />;
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
      <span class={gen.error ? 'conn conn-closed' : 'conn conn-open'} data-testid="conn" title="Polling the controller every second">
        {gen.error ? 'no answer' : 'live'}
      </span>
      {s ? (
        <span class={s.running ? 'good' : 'muted'} data-testid="run-state">
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
