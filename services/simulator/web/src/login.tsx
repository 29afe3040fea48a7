import { apiFetch, LoginForm } from '@outpost/ui';

export function Login({
  onLogin,
  initialError,
}: {
  onLogin: (username: string | null, bypass: boolean) => void;
  initialError?: string | undefined;
}) {
  return (
    <LoginForm
      title="GPS simulator"
      subtitle="Log in to control the simulator."
      initialError={initialError}
      submit={async (username, password) => {
        const r = await apiFetch<{ username: string | null; bypass_auth: boolean }>('/api/auth/login', {
          body: { username, password },
        });
        onLogin(r.username, r.bypass_auth);
      }}
    />
  );
}
