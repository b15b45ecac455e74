import { ErrorNotice } from '../../components/ErrorNotice';
import { useState } from 'react';
import { useOutletContext } from 'react-router';
import type { FieldError } from '../../api/client';
import { useUpdateProject } from '../../api/projects';
import type { CategorySchema, Project, Relation, Tool } from '../../api/types';
import { CheckboxField, SelectField, TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { Empty } from '../../components/States';
import { ClassificationList, type IdLocked } from './ClassificationEditor';
import { ColourField } from './ColourField';
import { IdField } from './IdField';
import {
  blankRelation,
  blankTool,
  emptySchema,
  kindOptions,
  RELATION_KINDS,
  removeAt,
  replaceAt,
  TOOL_KINDS,
  untitled,
} from './ontology-model';
import { keyOf, withDraftKeys, withoutDraftMarks, withReadableIds } from './readable-ids';
import { useIdLock } from './useIdLock';

type ErrorOf = (field: string) => string | undefined;

function ToolEditor({
  tool,
  i,
  onChange,
  onRemove,
  errorOf,
  idLocked,
}: {
  tool: Tool;
  i: number;
  onChange: (t: Tool) => void;
  onRemove: () => void;
  errorOf: ErrorOf;
  idLocked: IdLocked;
}) {
  const name = tool.title.trim() || `Tool ${i + 1}`;
  const path = `categorySchema.tools[${i}]`;
  const set = (patch: Partial<Tool>) => onChange({ ...tool, ...patch });
  return (
    <fieldset className="ontology-item">
      <legend>{name}</legend>
      <div className="row">
        <TextField
          label="Title"
          value={tool.title}
          onChange={(title) => set({ title })}
          error={errorOf(`${path}.title`)}
        />
        <IdField
          value={tool.schemaId}
          locked={idLocked(tool)}
          onChange={(schemaId) => set({ schemaId, __auto: false })}
          error={errorOf(`${path}.schemaId`)}
        />
        <SelectField
          label="Kind"
          value={tool.tool}
          options={kindOptions(TOOL_KINDS, tool.tool)}
          onChange={(kind) => set({ tool: kind })}
          error={errorOf(`${path}.tool`)}
        />
        <ColourField
          label="Colour"
          value={tool.color ?? ''}
          onChange={(color) => set({ color })}
          error={errorOf(`${path}.color`)}
        />
        <TextField
          label="Shortcut key"
          value={tool.shortcutKey ?? ''}
          onChange={(shortcutKey) => set({ shortcutKey })}
          error={errorOf(`${path}.shortcutKey`)}
        />
      </div>
      <div className="row">
        <CheckboxField label="Required" checked={tool.required ?? false} onChange={(required) => set({ required })} />
        <CheckboxField
          label="Many objects per task"
          checked={tool.multiple === true}
          onChange={(multiple) => set({ multiple })}
        />
      </div>
      <ClassificationList
        items={tool.classifications ?? []}
        onChange={(classifications) => set({ classifications })}
        errorOf={errorOf}
        idLocked={idLocked}
        path={`${path}.classifications`}
        owner={name}
        actions={
          <button type="button" className="danger" aria-label={`Remove tool ${name}`} onClick={onRemove}>
            Remove tool
          </button>
        }
      />
    </fieldset>
  );
}

function RelationEditor({
  relation,
  i,
  onChange,
  onRemove,
  errorOf,
  idLocked,
}: {
  relation: Relation;
  i: number;
  onChange: (r: Relation) => void;
  onRemove: () => void;
  errorOf: ErrorOf;
  idLocked: IdLocked;
}) {
  const name = relation.title.trim() || `Relation ${i + 1}`;
  const path = `categorySchema.relations[${i}]`;
  const set = (patch: Partial<Relation>) => onChange({ ...relation, ...patch });
  return (
    <fieldset className="ontology-item">
      <legend>{name}</legend>
      <div className="row">
        <TextField
          label="Title"
          value={relation.title}
          onChange={(title) => set({ title })}
          error={errorOf(`${path}.title`)}
        />
        <IdField
          value={relation.schemaId}
          locked={idLocked(relation)}
          onChange={(schemaId) => set({ schemaId, __auto: false })}
          error={errorOf(`${path}.schemaId`)}
        />
        <SelectField
          label="Kind"
          value={relation.tool}
          options={kindOptions(RELATION_KINDS, relation.tool)}
          onChange={(tool) => set({ tool })}
          error={errorOf(`${path}.tool`)}
        />
        <ColourField
          label="Colour"
          value={relation.color ?? ''}
          onChange={(color) => set({ color })}
          error={errorOf(`${path}.color`)}
        />
        <TextField
          label="Shortcut key"
          value={relation.shortcutKey ?? ''}
          onChange={(shortcutKey) => set({ shortcutKey })}
          error={errorOf(`${path}.shortcutKey`)}
        />
      </div>
      <button type="button" className="danger" aria-label={`Remove relation ${name}`} onClick={onRemove}>
        Remove relation
      </button>
    </fieldset>
  );
}

/** The project's ontology: tools, questions (classifications) with nested children, relations. */
export default function OntologyPage() {
  const project = useOutletContext<Project>();
  const [draft, setDraft] = useState<CategorySchema>(() => withDraftKeys(emptySchema(project.categorySchema)));
  const idLocked = useIdLock(project);
  const [dirty, setDirty] = useState(false);
  const update = useUpdateProject(project._id);
  // The form's own refusals (an item without a title) come before the server's.
  const [refused, setRefused] = useState<FieldError[]>([]);
  const errors = refused.length > 0 ? refused : fieldErrorsOf(update.error);
  const errorOf = errorLookup(errors);
  const edit = (next: CategorySchema) => {
    setDraft(withReadableIds(next));
    setDirty(true);
  };
  const save = () => {
    const missing = untitled(draft);
    setRefused(missing);
    if (missing.length > 0) {
      update.reset();
      return;
    }
    update.mutate(
      { categorySchema: withoutDraftMarks(draft) },
      {
        // Saved ids stay as they are from now on: the draft starts again from what was stored.
        onSuccess: (saved) => {
          setDraft(withDraftKeys(emptySchema(saved.categorySchema)));
          setDirty(false);
        },
      },
    );
  };
  return (
    <div className="ontology-page">
      <div className="page-head">
        <h1>Ontology</h1>
        <div className="save-bar">
          {dirty && <span className="muted">Unsaved changes</span>}
          {update.isSuccess && !dirty && <span role="status">Ontology saved.</span>}
          <button type="button" className="primary" onClick={save} disabled={update.isPending || !dirty}>
            {update.isPending ? 'Saving…' : 'Save ontology'}
          </button>
        </div>
      </div>
      {(update.isError || refused.length > 0) && (
        <ErrorNotice
          place="form"
          error={errors.length > 0 ? 'The ontology was not saved: the fields marked below need fixing.' : update.error}
        >
          {errors.length > 0 && (
            <ul>
              {errors.map((e) => (
                <li key={e.field}>
                  {e.field.replace(/^categorySchema\.?/, '') || 'ontology'}: {e.message}
                </li>
              ))}
            </ul>
          )}
        </ErrorNotice>
      )}
      <p className="muted">
        Each tool, question, option and relation has an id that answers and exports name: made from its title (“Car” is{' '}
        <code>car</code>) unless you type one.
        {idLocked.active && ' The project has answers now: the ids already saved are fixed.'}
      </p>
      <section className="card" aria-labelledby="ontology-tools">
        <h2 id="ontology-tools">Tools</h2>
        {draft.tools.length === 0 && <Empty title="No tools yet: add one for each kind of object to mark." />}
        {draft.tools.map((t, i) => (
          <ToolEditor
            key={keyOf(t)}
            tool={t}
            i={i}
            errorOf={errorOf}
            idLocked={idLocked.locked}
            onChange={(tool) => edit({ ...draft, tools: replaceAt(draft.tools, i, tool) })}
            onRemove={() => edit({ ...draft, tools: removeAt(draft.tools, i) })}
          />
        ))}
        <button
          type="button"
          onClick={() => edit({ ...draft, tools: [...draft.tools, blankTool(draft.tools.length)] })}
        >
          Add tool
        </button>
      </section>
      <section className="card" aria-labelledby="ontology-classifications">
        <h2 id="ontology-classifications">Questions about the whole asset</h2>
        <ClassificationList
          items={draft.classifications}
          onChange={(classifications) => edit({ ...draft, classifications })}
          errorOf={errorOf}
          idLocked={idLocked.locked}
          path="categorySchema.classifications"
        />
      </section>
      <section className="card" aria-labelledby="ontology-relations">
        <h2 id="ontology-relations">Relations</h2>
        {draft.relations.map((r, i) => (
          <RelationEditor
            key={keyOf(r)}
            relation={r}
            i={i}
            errorOf={errorOf}
            idLocked={idLocked.locked}
            onChange={(relation) => edit({ ...draft, relations: replaceAt(draft.relations, i, relation) })}
            onRemove={() => edit({ ...draft, relations: removeAt(draft.relations, i) })}
          />
        ))}
        <button
          type="button"
          onClick={() => edit({ ...draft, relations: [...draft.relations, blankRelation(draft.relations.length)] })}
        >
          Add relation
        </button>
      </section>
    </div>
  );
}
