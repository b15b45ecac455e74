import { type FormEvent, useState } from 'react';
import { STAGE_TYPES, type StageType } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';

const ADDABLE = STAGE_TYPES.filter((t) => t !== 'Start');

/** Adds a stage of a type, named; it lands in the next free slot of the flow, unconnected. */
export function AddStageForm({ onAdd }: { onAdd: (type: StageType, name: string) => void }) {
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
      <button type="submit">Add stage</button>
    </form>
  );
}
