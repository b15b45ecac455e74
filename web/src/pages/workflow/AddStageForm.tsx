import { type FormEvent, useState } from 'react';
import { STAGE_TYPES, type StageType } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';

const ADDABLE = STAGE_TYPES.filter((t) => t !== 'Start');

/**
 * Adds a stage of a type, named: after the selected stage and connected from it
 * (workflow-insert.ts), or, with none selected, in the next free slot of the flow, unconnected.
 */
export function AddStageForm({
  onAdd,
  after,
}: {
  onAdd: (type: StageType, name: string) => void;
  /** The selected stage's name, which the new stage will follow. */
  after: string | undefined;
}) {
  const [type, setType] = useState<StageType>('Label');
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onAdd(type, name);
    setName('');
  };
  return (
    <form className="add-stage" onSubmit={submit} aria-label="Add a stage">
      <SelectField label="New stage type" value={type} options={ADDABLE} onChange={setType} />
      <TextField label="New stage name" value={name} onChange={setName} placeholder={type} />
      <button type="submit" aria-describedby="add-stage-where">
        Add stage
      </button>
      <p id="add-stage-where" className="muted field-hint">
        {after
          ? `It goes after ${after}, connected from it.`
          : 'Select a stage with an output first to add the new one after it, connected.'}
      </p>
    </form>
  );
}
