import type { ComponentChildren } from 'preact';
import type { LiveState } from '../live.js';
import { type StatusMeaning, toneOf } from '../status.js';

/** A server or validation message. `role=alert` makes screen readers announce it. */
export function Banner({
  kind = 'error',
  children,
  onClose,
}: {
  kind?: 'error' | 'info' | 'ok' | 'warn';
  children: ComponentChildren;
  onClose?: () => void;
}) {
  return (
    <div class={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <div class="banner-text">{children}</div>
      {onClose ? (
        <button type="button" class="banner-close" aria-label="Dismiss" onClick={onClose}>
          ×
        </button>
      ) : null}
    </div>
  );
}

export function Card({
  title,
  children,
  id,
  wide,
}: {
  title: string;
  children: ComponentChildren;
  id?: string;
  wide?: boolean;
}) {
  return (
    <section class={wide ? 'card card-wide' : 'card'} id={id} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

const CONN_TEXT: Record<LiveState, string> = {
  connecting: 'connecting…',
  open: 'live',
  closed: 'reconnecting…',
};

export function ConnBadge({ state }: { state: LiveState }) {
  return (
    <span class={`conn conn-${state}`} data-testid="conn" title="Live connection to the service">
      {CONN_TEXT[state]}
    </span>
  );
}

/** The page frame: a header with the title, optional actions, and the content. */
export function AppShell({
  title,
  right,
  children,
}: {
  title: string;
  right?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <header class="topbar">
        <h1>{title}</h1>
        <div class="topbar-right">{right}</div>
      </header>
      <main class="content">{children}</main>
    </>
  );
}

/** A status word coloured by what it means (status.ts): the one way consoles colour a status. */
export function Status({ meaning, children }: { meaning: StatusMeaning; children: ComponentChildren }) {
  const tone = toneOf(meaning);
  return (
    <span class={tone} data-tone={tone}>
      {children}
    </span>
  );
}

/**
 * yes / no / – for a nullable flag, each side coloured by what it means. The defaults suit a check
 * whose "no" is a fault; a flag whose "no" is normal idle says so (`noIs="stopped"`).
 */
export function Flag({
  value,
  yes = 'yes',
  no = 'no',
  yesIs = 'online',
  noIs = 'failed',
}: {
  value: boolean | null | undefined;
  yes?: string;
  no?: string;
  yesIs?: StatusMeaning;
  noIs?: StatusMeaning;
}) {
  if (value === null || value === undefined) return <span class="muted">–</span>;
  return <Status meaning={value ? yesIs : noIs}>{value ? yes : no}</Status>;
}

/** One checkbox with its text beside it (`name` is what a form and a test find it by). */
export function CheckField({
  label,
  name,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  name: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <label class="check">
      <input
        type="checkbox"
        name={name}
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span>{label}</span>
    </label>
  );
}
