import { CheckField } from '@outpost/ui';
import type { ComponentChildren, InputHTMLAttributes, TextareaHTMLAttributes } from 'preact';

export { CheckField };

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'value' | 'onInput'>;

/** A labelled input; `onValue` gets its text on every keystroke (a number field's too). */
export function InputField({
  label,
  value,
  onValue,
  ...input
}: InputProps & { label: ComponentChildren; value: string | number; onValue: (value: string) => void }) {
  return (
    <label class="field">
      <span>{label}</span>
      <input {...input} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </label>
  );
}

type TextAreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'label' | 'value' | 'onInput'>;

/** A labelled multi-line text box. */
export function TextAreaField({
  label,
  value,
  onValue,
  ...area
}: TextAreaProps & { label: ComponentChildren; value: string; onValue: (value: string) => void }) {
  return (
    <label class="field">
      <span>{label}</span>
      <textarea {...area} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </label>
  );
}

export interface Choice<V extends string> {
  value: V;
  label: string;
}

/** A labelled drop-down of fixed choices. */
export function SelectField<V extends string>({
  label,
  name,
  value,
  choices,
  onValue,
}: {
  label: string;
  name: string;
  value: V;
  choices: readonly Choice<V>[];
  onValue: (value: V) => void;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onValue(e.currentTarget.value as V)}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A set of ids picked with one checkbox each (named `${name}-${id}`). */
export function CheckList({
  label,
  items,
  selected,
  onChange,
  name,
}: {
  label: string;
  items: readonly { id: number; name: string }[];
  selected: number[];
  onChange: (ids: number[]) => void;
  name: string;
}) {
  return (
    <fieldset>
      <legend>{label}</legend>
      {items.length === 0 ? <p class="muted">None yet.</p> : null}
      <div class="checks">
        {items.map((i) => (
          <CheckField
            key={i.id}
            label={i.name}
            name={`${name}-${i.id}`}
            checked={selected.includes(i.id)}
            onChange={(on) => onChange(on ? [...selected, i.id] : selected.filter((x) => x !== i.id))}
          />
        ))}
      </div>
    </fieldset>
  );
}
