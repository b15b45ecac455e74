import type { ReactNode } from 'react';
import './auth.css';

/** The frame of the pages a person sees before being signed in (sign-in, password, invite). */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth-page">
      <section className="auth-card" aria-labelledby="auth-title">
        <a className="auth-brand" href="/">
          Annotary
        </a>
        <h1 id="auth-title">{title}</h1>
        {children}
      </section>
    </main>
  );
}

/** A labelled input whose error (from the server's field errors) is shown and announced under it. */
export function Field(props: {
  id: string;
  label: string;
  type?: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete?: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
}) {
  const describedBy = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className="auth-field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        autoComplete={props.autoComplete}
        required={props.required ?? true}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
      {props.hint && (
        <p className="auth-hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p className="auth-field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
