import { type ChangeEvent, type ReactNode, useId } from 'react';

interface FieldFrameProps {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  children: (ids: { id: string; describedBy: string | undefined }) => ReactNode;
}

/** A visible label, the control, and the server's or the form's error for it underneath. */
function FieldFrame({ label, error, hint, children }: FieldFrameProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : '', hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy })}
      {hint && (
        <small id={hintId} className="field-hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={errorId} className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

interface TextFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'url' | 'email' | 'password' | 'search' | 'color' | 'datetime-local';
  required?: boolean;
  multiline?: boolean;
  placeholder?: string;
  autoFocus?: boolean;
  readOnly?: boolean;
}

export function TextField({ label, value, onChange, error, hint, type = 'text', multiline, ...rest }: TextFieldProps) {
  const change = (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange(e.target.value);
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {({ id, describedBy }) =>
        multiline ? (
          <textarea
            id={id}
            value={value}
            onChange={change}
            aria-invalid={!!error}
            aria-describedby={describedBy}
            {...rest}
          />
        ) : (
          <input
            id={id}
            type={type}
            value={value}
            onChange={change}
            aria-invalid={!!error}
            aria-describedby={describedBy}
            {...rest}
          />
        )
      }
    </FieldFrame>
  );
}

interface NumberFieldProps {
  label: string;
  /** null, as the document allows a stored stage to hold, shows as empty. */
  value: number | null | undefined;
  onChange: (value: number | undefined) => void;
  error?: string | undefined;
  hint?: string;
  min?: number;
  max?: number;
  step?: number;
}

/** An empty box means "not set" (undefined), so the server's default applies. */
export function NumberField({ label, value, onChange, error, hint, ...rest }: NumberFieldProps) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {({ id, describedBy }) => (
        <input
          id={id}
          type="number"
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
          aria-invalid={!!error}
          aria-describedby={describedBy}
          {...rest}
        />
      )}
    </FieldFrame>
  );
}

interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: readonly (T | { value: T; label: string })[];
  onChange: (value: T) => void;
  error?: string | undefined;
  hint?: string;
}

export function SelectField<T extends string>({ label, value, options, onChange, error, hint }: SelectFieldProps<T>) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {({ id, describedBy }) => (
        <select
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value as T)}
          aria-invalid={!!error}
          aria-describedby={describedBy}
        >
          {options.map((o) => {
            const { value: v, label: l } = typeof o === 'string' ? { value: o, label: o } : o;
            return (
              <option key={v} value={v}>
                {l}
              </option>
            );
          })}
        </select>
      )}
    </FieldFrame>
  );
}

export function CheckboxField({
  label,
  checked,
  onChange,
  error,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
}) {
  const id = useId();
  return (
    <div className={error ? 'field field-check field-invalid' : 'field field-check'}>
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {error && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

interface FileFieldProps {
  label: string;
  /** The kinds of file offered first by the browser's picker (`.csv,.ndjson`). */
  accept: string;
  onChange: (file: File | undefined) => void;
  hint?: string;
}

/** One file picked with the browser's picker, under a visible label. */
export function FileField({ label, accept, onChange, hint }: FileFieldProps) {
  return (
    <FieldFrame label={label} hint={hint}>
      {({ id, describedBy }) => (
        <input
          id={id}
          type="file"
          accept={accept}
          onChange={(e) => onChange(e.target.files?.[0])}
          aria-describedby={describedBy}
        />
      )}
    </FieldFrame>
  );
}
