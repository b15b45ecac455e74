import { type ReactNode, useId, useState } from 'react';
import { useProjectList } from '../../api/projects';
import { SelectField } from '../../components/Field';

/**
 * A one-time secret (an invite link, a new API key) in a read-only box with a copy button. The
 * box can be selected by hand too, where the browser refuses the clipboard.
 */
export function CopyField({
  label,
  value,
  what,
  short,
}: {
  label: string;
  value: string;
  what: string;
  short?: string;
}) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input id={id} type="text" readOnly value={value} onFocus={(e) => e.target.select()} spellCheck={false} />
        <button type="button" onClick={() => void copy()} aria-label={`Copy ${what}`}>
          Copy {short ?? what}
        </button>
      </div>
      <span role="status" className={copied === 'no' ? 'field-error' : 'form-ok'}>
        {copied === 'yes' && 'Copied.'}
        {copied === 'no' && 'The browser did not allow copying: select the text and copy it by hand.'}
      </span>
    </div>
  );
}

/** A destructive button that asks once more, in place, before it acts. */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  busy,
}: {
  label: string;
  confirmLabel: string;
  question: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger-link" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Previous / next for a list the server pages. */
export function Pager({
  label,
  page,
  total,
  limit,
  onPage,
}: {
  label: string;
  page: number;
  total: number;
  limit: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** What a role cannot use, said instead of an error. */
export function RoleNote({ children }: { children: ReactNode }) {
  return (
    <p className="org-note" role="note">
      {children}
    </p>
  );
}

/** The words of a box where people type a list one a line, or separated by commas or spaces. */
export const wordsOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((w) => w.trim())
    .filter(Boolean);

/** A table's column headers; `actions` adds a last column for row buttons, named for screen readers. */
export function TableHead({ columns, actions }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** Who made something, and the day. */
export function MadeBy({ by, at }: { by: string; at: string }) {
  return (
    <>
      {by}
      <div className="muted">{new Date(at).toLocaleDateString()}</div>
    </>
  );
}

/** The organization's projects (the first hundred by name), with a first "none" choice. */
export function ProjectSelect({
  label,
  none,
  value,
  onChange,
  error,
}: {
  label: string;
  none: string;
  value: string;
  onChange: (projectId: string) => void;
  error?: string | undefined;
}) {
  const projects = useProjectList(1, 100, '');
  return (
    <SelectField
      label={label}
      value={value}
      options={[
        { value: '', label: none },
        ...(projects.data?.projects ?? []).map((p) => ({ value: p._id, label: p.name })),
      ]}
      onChange={onChange}
      error={error}
    />
  );
}
