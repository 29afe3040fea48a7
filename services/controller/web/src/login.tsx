import { Banner, errorText } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api, session } from './api.js';

export function Login({ onLogin, initialError }: { onLogin: () => void; initialError?: string | undefined }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api<{ access_token: string }>('/api/auth/login', { body: { username, password } });
      session.set(r.access_token);
      onLogin();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login card">
      <h1>Generator controller</h1>
      <p class="muted">Log in to run the generator.</p>
      {error ? <Banner>{error}</Banner> : null}
      <form onSubmit={submit}>
        <label class="field">
          <span>Username</span>
          <input
            type="text"
            name="username"
            autocomplete="username"
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Password</span>
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
