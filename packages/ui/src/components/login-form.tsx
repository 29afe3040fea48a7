import { useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { Banner } from './common.js';

export interface LoginFormProps {
  title: string;
  subtitle: string;
  /** Logs in; a thrown error's `detail` is shown above the form. */
  submit: (username: string, password: string) => Promise<void>;
  initialError?: string | undefined;
}

/** The login card every console shows before its session or token exists. */
export function LoginForm({ title, subtitle, submit, initialError }: LoginFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await submit(username, password);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login card">
      <h1>{title}</h1>
      <p class="muted">{subtitle}</p>
      {error ? <Banner>{error}</Banner> : null}
      <form onSubmit={onSubmit}>
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
