import { ApiError, AppShell, apiFetch, errorText } from '@outpost/ui';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { Console } from './console.js';
import { Login } from './login.js';

type Auth =
  | { state: 'checking' }
  | { state: 'out'; error?: string }
  | { state: 'in'; username: string | null; bypass: boolean };

export function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });

  useEffect(() => {
    apiFetch<{ authenticated: boolean; username: string | null; bypass_auth: boolean }>('/api/auth/check')
      .then((r) =>
        setAuth(
          r.authenticated ? { state: 'in', username: r.username, bypass: r.bypass_auth } : { state: 'out' },
        ),
      )
      .catch((err) =>
        setAuth(
          err instanceof ApiError && err.status === 401
            ? { state: 'out' }
            : { state: 'out', error: errorText(err) },
        ),
      );
  }, []);

  const loggedOut = useCallback(
    () => setAuth({ state: 'out', error: 'Your session has ended; log in again' }),
    [],
  );

  if (auth.state === 'checking') return <AppShell title="GPS simulator">{null}</AppShell>;
  if (auth.state === 'out') {
    return (
      <Login
        initialError={auth.error}
        onLogin={(username, bypass) => setAuth({ state: 'in', username, bypass })}
      />
    );
  }
  const logout = async () => {
    await apiFetch('/api/auth/logout', { method: 'POST' }).catch(() => {});
    setAuth({ state: 'out' });
  };
  return (
    <Console username={auth.username} bypass={auth.bypass} onLogout={logout} onUnauthorized={loggedOut} />
  );
}
