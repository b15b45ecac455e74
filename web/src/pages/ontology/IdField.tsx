import { TextField } from '../../components/Field';

/** Why a saved id cannot change any more, said on its box. */
export const LOCKED_HINT = 'Fixed: the project has answers, and answers and exports name this id.';

/**
 * An item's schemaId: made from its title until typed here (readable-ids.ts), read-only once
 * the project has answers that may name it.
 */
export function IdField({
  value,
  locked,
  onChange,
  error,
}: {
  value: string;
  locked: boolean;
  onChange: (schemaId: string) => void;
  error?: string | undefined;
}) {
  return (
    <TextField
      label="Id"
      value={value}
      onChange={onChange}
      error={error}
      readOnly={locked}
      placeholder="made from the title"
      {...(locked ? { hint: LOCKED_HINT } : {})}
    />
  );
}
