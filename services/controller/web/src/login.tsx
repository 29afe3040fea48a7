import { LoginForm } from '@outpost/ui';
import { api, session } from './api.js';

export function Login({ onLogin, initialError }: { onLogin: () => void; initialError?: string | undefined }) {
  return (
    <LoginForm
      title="Generator controller"
      subtitle="Log in to run the generator."
      initialError={initialError}
      submit={async (username, password) => {
        const r = await api<{ access_token: string }>('/api/auth/login', { body: { username, password } });
        session.set(r.access_token);
        onLogin();
      }}
    />
  );
}
