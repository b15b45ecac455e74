import type { ReactNode } from 'react';
import type { Classification } from '../../api/types';
import { CheckboxField, SelectField, TextField } from '../../components/Field';
import { ColourField } from './ColourField';
import {
  blankClassification,
  blankOption,
  CLASSIFICATION_KINDS,
  removeAt,
  replaceAt,
  WITH_OPTIONS,
} from './ontology-model';

type ErrorOf = (field: string) => string | undefined;

/**
 * A list of classifications, each with its options and nested children, to any depth. `label`
 * names the place ("Tool 1 › Question 2") so every field's label says where it is.
 */
export function ClassificationList({
  items,
  onChange,
  errorOf,
  path,
  label,
  actions,
}: {
  items: readonly Classification[];
  onChange: (items: Classification[]) => void;
  errorOf: ErrorOf;
  path: string;
  label: string;
  /** Buttons of the enclosing item (Remove Tool 1), put in one row with "Add question". */
  actions?: ReactNode;
}) {
  return (
    <div className="classification-list">
      {items.map((c, i) => (
        <ClassificationEditor
          key={c.schemaId}
          item={c}
          onChange={(next) => onChange(replaceAt(items, i, next))}
          onRemove={() => onChange(removeAt(items, i))}
          errorOf={errorOf}
          path={`${path}[${i}]`}
          label={`${label}Question ${i + 1}`}
        />
      ))}
      <div className="item-actions">
        <button type="button" onClick={() => onChange([...items, blankClassification()])}>
          Add question{label ? ` to ${label.replace(/ › $/, '')}` : ''}
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
  path,
  label,
}: {
  item: Classification;
  onChange: (item: Classification) => void;
  onRemove: () => void;
  errorOf: ErrorOf;
  path: string;
  label: string;
}) {
  const set = (patch: Partial<Classification>) => onChange({ ...item, ...patch });
  const options = item.options ?? [];
  return (
    <fieldset className="ontology-item">
      <legend>{item.title || label}</legend>
      <div className="row">
        <TextField
          label={`${label} title`}
          value={item.title}
          onChange={(title) => set({ title })}
          error={errorOf(`${path}.title`)}
        />
        <SelectField
          label={`${label} kind`}
          value={item.tool}
          options={CLASSIFICATION_KINDS}
          onChange={(tool) => set({ tool })}
          error={errorOf(`${path}.tool`)}
        />
        <ColourField
          label={`${label} colour`}
          value={item.color ?? ''}
          onChange={(color) => set({ color })}
          error={errorOf(`${path}.color`)}
        />
        <TextField
          label={`${label} shortcut key`}
          value={item.shortcutKey ?? ''}
          onChange={(shortcutKey) => set({ shortcutKey })}
          error={errorOf(`${path}.shortcutKey`)}
        />
      </div>
      <CheckboxField
        label={`${label} is required`}
        checked={item.required ?? false}
        onChange={(required) => set({ required })}
      />
      {WITH_OPTIONS.has(item.tool) && (
        <div className="options">
          <h4>Options</h4>
          {options.map((o, k) => (
            <div key={o.schemaId} className="option">
              <TextField
                label={`${label} option ${k + 1}`}
                value={o.value}
                onChange={(value) => set({ options: replaceAt(options, k, { ...o, value }) })}
                error={errorOf(`${path}.options[${k}].value`) ?? errorOf(`${path}.options[${k}].schemaId`)}
              />
              <ClassificationList
                items={o.children ?? []}
                onChange={(children) => set({ options: replaceAt(options, k, { ...o, children }) })}
                errorOf={errorOf}
                path={`${path}.options[${k}].children`}
                label={`${label} option ${k + 1} › `}
                actions={
                  <button type="button" className="danger" onClick={() => set({ options: removeAt(options, k) })}>
                    Remove {label} option {k + 1}
                  </button>
                }
              />
            </div>
          ))}
        </div>
      )}
      <div className="item-actions">
        {WITH_OPTIONS.has(item.tool) && (
          <button type="button" onClick={() => set({ options: [...options, blankOption()] })}>
            Add option to {label}
          </button>
        )}
        <button type="button" className="danger" onClick={onRemove}>
          Remove {label}
        </button>
      </div>
    </fieldset>
  );
}
