import { useState } from 'react';
import { addRelation, deleteObject, deleteRelation } from '../core/edit';
import type { Ontology } from '../core/ontology';
import type { ClassificationAnswer, EditorAnswer, EditorObject } from '../core/answer';
import type { Problem } from '../core/validate';
import { ObjectList } from './ObjectList';
import { Questions } from './Questions';

export interface ObjectsPanelProps {
  ontology: Ontology;
  answer: EditorAnswer;
  colors: Map<string, string>;
  selectedId: string | undefined;
  readOnly: boolean | undefined;
  problems: Problem[];
  onSelect(objectId: string | undefined): void;
  onChange(answer: EditorAnswer): void;
  onObjectAnswers(objectId: string, answers: ClassificationAnswer[]): void;
  /** Said when no object is shown, instead of inviting to draw (a view that shows none). */
  emptyNote?: string | undefined;
}

/** Each object's name as the list shows it: its tool's title and its number among that tool's objects ("Car 2"). */
export function objectNumbering(objects: readonly EditorObject[], ontology: Ontology): Map<string, string> {
  const titles = new Map((ontology.tools ?? []).map((t) => [t.schemaId, t.title]));
  const numbering = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const o of objects) {
    const n = (seen.get(o.schemaId) ?? 0) + 1;
    seen.set(o.schemaId, n);
    numbering.set(o.objectId, `${titles.get(o.schemaId) ?? o.schemaId} ${n}`);
  }
  return numbering;
}

/** The answer's objects as a list a keyboard can reach, the selected one's questions, relations. */
export function ObjectsPanel(p: ObjectsPanelProps) {
  const { ontology, answer, selectedId } = p;
  const tools = new Map((ontology.tools ?? []).map((t) => [t.schemaId, t]));
  const numbering = objectNumbering(answer.objects, ontology);
  const flagged = new Set(p.problems.flatMap((x) => (x.objectId ? [x.objectId] : [])));
  const selected = answer.objects.find((o) => o.objectId === selectedId);
  const selectedTool = selected && tools.get(selected.schemaId);

  return (
    <section className="editor-objects" aria-labelledby="objects-title">
      <h2 id="objects-title">Objects ({answer.objects.length})</h2>
      {answer.objects.length === 0 && (
        <p className="muted">{p.emptyNote ?? 'Nothing drawn yet: pick a tool and draw on the image.'}</p>
      )}
      <ObjectList
        objects={answer.objects}
        numbering={numbering}
        colors={p.colors}
        selectedId={selectedId}
        readOnly={p.readOnly}
        flagged={flagged}
        onSelect={p.onSelect}
        onDelete={(objectId) => {
          p.onChange(deleteObject(answer, objectId));
          if (objectId === selectedId) p.onSelect(undefined);
        }}
      />
      {selected && selectedTool?.classifications?.length ? (
        <div className="object-questions" aria-label={`Questions of ${numbering.get(selected.objectId)}`} role="group">
          <h3>{numbering.get(selected.objectId)}</h3>
          <Questions
            questions={selectedTool.classifications}
            answers={selected.classifications}
            problems={p.problems.filter((x) => x.objectId === selected.objectId)}
            readOnly={p.readOnly}
            onChange={(list) => p.onObjectAnswers(selected.objectId, list)}
          />
        </div>
      ) : null}
      <Relations {...p} numbering={numbering} />
    </section>
  );
}

function Relations(p: ObjectsPanelProps & { numbering: Map<string, string> }) {
  const relations = p.ontology.relations ?? [];
  const [kind, setKind] = useState(relations[0]?.schemaId ?? '');
  const [picked, setPicked] = useState<string[]>([]);
  if (relations.length === 0) return null;
  const relation = relations.find((r) => r.schemaId === kind);
  const need = relation?.tool === 'one-to-one' ? 2 : 2;
  const tooMany = relation?.tool === 'one-to-one' && picked.length > 2;
  return (
    <div className="relations">
      <h3>Relations</h3>
      {p.answer.relations.length === 0 && (
        <p className="muted">{p.answer.objects.length < 2 ? 'Draw two objects to relate them.' : 'No relation yet.'}</p>
      )}
      <ul>
        {p.answer.relations.map((r) => (
          <li key={r.relationId}>
            {relations.find((x) => x.schemaId === r.schemaId)?.title ?? r.schemaId}:{' '}
            {r.objectIds.map((id) => p.numbering.get(id) ?? id).join(' – ')}
            {!p.readOnly && (
              <button
                type="button"
                className="icon"
                aria-label={`Delete relation ${r.relationId}`}
                onClick={() => p.onChange(deleteRelation(p.answer, r.relationId))}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {!p.readOnly && p.answer.objects.length >= 2 && (
        <fieldset className="relation-form">
          <legend>New relation</legend>
          <label>
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value)}>
              {relations.map((r) => (
                <option key={r.schemaId} value={r.schemaId}>
                  {r.title} ({r.tool})
                </option>
              ))}
            </select>
          </label>
          {p.answer.objects.map((o) => (
            <label key={o.objectId} className="choice">
              <input
                type="checkbox"
                checked={picked.includes(o.objectId)}
                onChange={(e) =>
                  setPicked(e.target.checked ? [...picked, o.objectId] : picked.filter((x) => x !== o.objectId))
                }
              />
              {p.numbering.get(o.objectId)}
            </label>
          ))}
          {tooMany && <p className="field-error">A one-to-one relation joins exactly two objects.</p>}
          <button
            type="button"
            disabled={picked.length < need || tooMany}
            onClick={() => {
              p.onChange(addRelation(p.answer, kind, picked));
              setPicked([]);
            }}
          >
            Add relation
          </button>
        </fieldset>
      )}
    </div>
  );
}
