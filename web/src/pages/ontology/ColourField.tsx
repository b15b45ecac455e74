import { TextField } from '../../components/Field';

/** A colour as the contract keeps it (#rrggbb), typed or picked, with a swatch. */
export function ColourField({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}) {
  return (
    <div className="colour-field">
      <TextField label={label} value={value} onChange={onChange} error={error} placeholder="#rrggbb" />
      <input
        type="color"
        aria-label={`Pick ${label}`}
        value={/^#[0-9a-fA-F]{6}$/.test(value) ? value : '#000000'}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
