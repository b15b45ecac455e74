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
  const valid = /^#[0-9a-fA-F]{6}$/.test(value);
  return (
    <div className="colour-field">
      <TextField label={label} value={value} onChange={onChange} error={error} placeholder="#rrggbb" />
      {/* A colour input always holds one: without a valid colour it shows white with a dashed
          border, as empty as the box beside it, rather than a black that is not set. */}
      <input
        type="color"
        aria-label={`Pick ${label}`}
        className={valid ? undefined : 'colour-unset'}
        title={valid ? undefined : 'No colour set'}
        value={valid ? value : '#ffffff'}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
