import type { ReactNode } from 'react';
import type { Classification } from '../../api/types';
import { CheckboxField, SelectField, TextField } from '../../components/Field';
import { ColourField } from './ColourField';
import { IdField } from './IdField';
import {
  blankClassification,
  blankOption,
  CLASSIFICATION_KINDS,
  kindOptions,
  removeAt,
  replaceAt,
  WITH_OPTIONS,
} from './ontology-model';
import { keyOf } from './readable-ids';

type ErrorOf = (field: string) => string | undefined;
/** Whether a saved item's id may no longer change (the project has answers). */
export type IdLocked = (item: { schemaId: string; __auto?: boolean }) => boolean;

/**
 * A list of classifications, each with its options and nested children, to any depth. Fields
 * carry short labels ("Title", "Kind") inside the item's group, whose name is the item's title;
 * buttons say what they act on by its title ("Add question to Car"), short where titles are.
 */
export function ClassificationList({
  items,
  onChange,
  errorOf,
  idLocked,
  path,
  owner,
  actions,
}: {
  items: readonly Classification[];
  onChange: (items: Classification[]) => void;
  errorOf: ErrorOf;
  idLocked: IdLocked;
  path: string;
  /** What the questions belong to, for the buttons' names ("Car", "Sunny"); none for the whole asset. */
  owner?: string | undefined;
  /** Buttons of the enclosing item (Remove Car), put in one row with "Add question". */
  actions?: ReactNode;
}) {
  return (
    <div className="classification-list">
      {items.map((c, i) => (
        <ClassificationEditor
          key={keyOf(c)}
          item={c}
          onChange={(next) => onChange(replaceAt(items, i, next))}
          onRemove={() => onChange(removeAt(items, i))}
          errorOf={errorOf}
          idLocked={idLocked}
          path={`${path}[${i}]`}
          name={c.title.trim() || `Question ${i + 1}`}
        />
      ))}
      <div className="item-actions">
        <button
          type="button"
          aria-label={owner ? `Add question to ${owner}` : 'Add question'}
          onClick={() => onChange([...items, blankClassification()])}
        >
          Add question
        </button>
        {actions}
      </div>
    </div>
  );
}

function ClassificationEditor({
  item,
  onChange,
  onRemove,
  errorOf,
  idLocked,
  path,
  name,
}: {
  item: Classification;
  onChange: (item: Classification) => void;
  onRemove: () => void;
  errorOf: ErrorOf;
  idLocked: IdLocked;
  path: string;
  name: string;
}) {
  const set = (patch: Partial<Classification>) => onChange({ ...item, ...patch });
  const options = item.options ?? [];
  return (
    <fieldset className="ontology-item">
      <legend>{name}</legend>
      <div className="row">
        <TextField
          label="Title"
          value={item.title}
          onChange={(title) => set({ title })}
          error={errorOf(`${path}.title`)}
        />
        <IdField
          value={item.schemaId}
          locked={idLocked(item)}
          onChange={(schemaId) => set({ schemaId, __auto: false })}
          error={errorOf(`${path}.schemaId`)}
        />
        <SelectField
          label="Kind"
          value={item.tool}
          options={kindOptions(CLASSIFICATION_KINDS, item.tool)}
          onChange={(tool) => set({ tool })}
          error={errorOf(`${path}.tool`)}
        />
        <ColourField
          label="Colour"
          value={item.color ?? ''}
          onChange={(color) => set({ color })}
          error={errorOf(`${path}.color`)}
        />
        <TextField
          label="Shortcut key"
          value={item.shortcutKey ?? ''}
          onChange={(shortcutKey) => set({ shortcutKey })}
          error={errorOf(`${path}.shortcutKey`)}
        />
      </div>
      <CheckboxField label="Required" checked={item.required ?? false} onChange={(required) => set({ required })} />
      {WITH_OPTIONS.has(item.tool) && (
        <div className="options">
          <h4>Options</h4>
          {options.map((o, k) => {
            const option = o.value.trim() || String(k + 1);
            return (
              <div key={keyOf(o)} className="option" role="group" aria-label={`Option ${option} of ${name}`}>
                <div className="row">
                  <TextField
                    label={`Option ${k + 1}`}
                    value={o.value}
                    onChange={(value) => set({ options: replaceAt(options, k, { ...o, value }) })}
                    error={errorOf(`${path}.options[${k}].value`)}
                  />
                  <IdField
                    value={o.schemaId}
                    locked={idLocked(o)}
                    onChange={(schemaId) => set({ options: replaceAt(options, k, { ...o, schemaId, __auto: false }) })}
                    error={errorOf(`${path}.options[${k}].schemaId`)}
                  />
                </div>
                <ClassificationList
                  items={o.children ?? []}
                  onChange={(children) => set({ options: replaceAt(options, k, { ...o, children }) })}
                  errorOf={errorOf}
                  idLocked={idLocked}
                  path={`${path}.options[${k}].children`}
                  owner={o.value.trim() || `option ${k + 1}`}
                  actions={
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Remove option ${option}`}
                      onClick={() => set({ options: removeAt(options, k) })}
                    >
                      Remove option
                    </button>
                  }
                />
              </div>
            );
          })}
        </div>
      )}
      <div className="item-actions">
        {WITH_OPTIONS.has(item.tool) && (
          <button
            type="button"
            aria-label={`Add option to ${name}`}
            onClick={() => set({ options: [...options, blankOption()] })}
          >
            Add option
          </button>
        )}
        <button type="button" className="danger" aria-label={`Remove question ${name}`} onClick={onRemove}>
          Remove question
        </button>
      </div>
    </fieldset>
  );
}
