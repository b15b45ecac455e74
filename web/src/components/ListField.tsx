import { useState } from 'react';
import { TextField } from './Field';

/**
 * A list of short strings (e-mails, batch names) edited as text, one per line or comma
 * separated. Keeps the person's text as typed; the value handed up is the cleaned list.
 */
export function ListField({
  label,
  value,
  onChange,
  error,
  hint,
}: {
  label: string;
  value: readonly string[];
  onChange: (value: string[]) => void;
  error?: string | undefined;
  hint?: string;
}) {
  const [text, setText] = useState(value.join('\n'));
  return (
    <TextField
      label={label}
      value={text}
      multiline
      error={error}
      hint={hint ?? 'One a line, or separated by commas.'}
      onChange={(t) => {
        setText(t);
        onChange(
          t
            .split(/[\n,]/)
            .map((s) => s.trim())
            .filter(Boolean),
        );
      }}
    />
  );
}
