import { useEffect, useState } from 'preact/hooks';

/** A text setting: edits stay local until the field is left (or Enter), then go to the server once. */
export function TextSetting({
  label,
  value,
  onCommit,
  disabled,
  placeholder,
  name,
  inputMode,
}: {
  label: string;
  value: string;
  onCommit: (v: string) => void;
  disabled?: boolean;
  placeholder?: string;
  name: string;
  inputMode?: 'decimal' | 'numeric' | 'text';
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  return (
    <label class="field">
      <span>{label}</span>
      <input
        type="text"
        name={name}
        value={draft}
        disabled={disabled}
        placeholder={placeholder}
        inputMode={inputMode}
        autocomplete="off"
        spellcheck={false}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => {
          const v = e.currentTarget.value.trim();
          if (v !== value) onCommit(v);
        }}
      />
    </label>
  );
}

/** A port or other integer; anything not a whole number is put back to the server's value. */
export function NumberSetting({
  label,
  value,
  onCommit,
  disabled,
  name,
  min = 1,
  max = 65535,
}: {
  label: string;
  value: number;
  onCommit: (v: number) => void;
  disabled?: boolean;
  name: string;
  min?: number;
  max?: number;
}) {
  const [draft, setDraft] = useState(String(value));
  useEffect(() => setDraft(String(value)), [value]);
  return (
    <label class="field">
      <span>{label}</span>
      <input
        type="number"
        name={name}
        min={min}
        max={max}
        step={1}
        value={draft}
        disabled={disabled}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => {
          const n = Number(e.currentTarget.value);
          if (Number.isInteger(n) && n >= min && n <= max) {
            if (n !== value) onCommit(n);
          } else setDraft(String(value));
        }}
      />
    </label>
  );
}
