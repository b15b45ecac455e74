import { indexClassifications, type Ontology } from '../../editor/core/ontology';
import type { ClassificationAnswer, EditorObject } from '../../editor/core/answer';

type Questions = ReturnType<typeof indexClassifications>;

/** An answer's value in words: option schemaIds become their option's text. */
function valueText(c: ClassificationAnswer, questions: Questions): string {
  const q = questions.get(c.schemaId);
  const option = (id: unknown) => q?.options?.find((o) => o.schemaId === id)?.value ?? String(id);
  const v = c.answer;
  if (v === null || v === '') return 'no answer';
  if (Array.isArray(v)) return v.length ? v.map(option).join(', ') : 'no answer';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return q?.options?.length ? option(v) : String(v);
}

function AnswerList({ list, questions }: { list: ClassificationAnswer[]; questions: Questions }) {
  return (
    <dl className="answer-list">
      {list.map((c) => (
        <div key={c.schemaId}>
          <dt>{questions.get(c.schemaId)?.title ?? c.schemaId}</dt>
          <dd>
            {valueText(c, questions)}
            {c.classifications && c.classifications.length > 0 && (
              <AnswerList list={c.classifications} questions={questions} />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A box, polygon... in a few words, for the list beside the image. */
function shapeText(o: EditorObject): string {
  const g = o.geometry;
  const r = Math.round;
  switch (g.kind) {
    case 'bounding-box':
    case 'rotated-bounding-box':
      return `box at ${r(g.value.x)}, ${r(g.value.y)}, ${r(g.value.width)} × ${r(g.value.height)}`;
    case 'polygon':
    case 'polyline':
      return `${g.kind} of ${g.value.length} points`;
    case 'point':
      return `point at ${r(g.value[0])}, ${r(g.value[1])}`;
    case 'ner':
      return `characters ${g.value.start} to ${g.value.end}`;
    case 'angle':
      return `angle of ${g.value.angle.toFixed(1)}° at ${r(g.value.vertex[0])}, ${r(g.value.vertex[1])}`;
    case 'pdf':
      return g.value.rects.length
        ? `“${g.value.text ?? ''}” on page ${g.value.page + 1}`
        : `area on page ${g.value.page + 1}`;
    case 'segmentation': {
      const holes = g.value.zones.reduce((n, z) => n + z.holes.length, 0);
      const zones = g.value.zones.length;
      return `${zones} ${zones === 1 ? 'zone' : 'zones'}${holes ? `, ${holes} ${holes === 1 ? 'hole' : 'holes'}` : ''}`;
    }
    case 'pct': {
      const c = g.value.cuboid;
      if (c) {
        const d = c.dimensions;
        return `cuboid at ${c.center.x.toFixed(1)}, ${c.center.y.toFixed(1)} m, ${d.length.toFixed(1)} × ${d.width.toFixed(1)} × ${d.height.toFixed(1)} m`;
      }
      if (g.value.box) return `rectangle on camera ${g.value.sensor ?? ''}`;
      return `${g.value.markingTool} of ${g.value.points?.length ?? 0} points`;
    }
  }
}

/** The answer in words: its objects (select one to outline it) and its classifications. */
export function TaskAnswer({
  ontology,
  objects,
  classifications,
  selectedId,
  onSelect,
}: {
  ontology: Ontology;
  objects: EditorObject[];
  classifications: ClassificationAnswer[];
  selectedId: string | undefined;
  onSelect: (id: string | undefined) => void;
}) {
  const questions = indexClassifications(ontology);
  const tools = new Map((ontology.tools ?? []).map((t) => [t.schemaId, t.title]));
  return (
    <section className="card" aria-labelledby="answer-title">
      <h2 id="answer-title">Answer</h2>
      <h3>Objects ({objects.length})</h3>
      {objects.length === 0 ? (
        <p className="muted">No objects.</p>
      ) : (
        <ul className="object-list">
          {objects.map((o) => (
            <li key={o.objectId}>
              <button
                type="button"
                className="link"
                aria-pressed={o.objectId === selectedId}
                onClick={() => onSelect(o.objectId === selectedId ? undefined : o.objectId)}
              >
                {tools.get(o.schemaId) ?? o.schemaId}
              </button>{' '}
              <span className="muted">{shapeText(o)}</span>
              {o.classifications.length > 0 && <AnswerList list={o.classifications} questions={questions} />}
            </li>
          ))}
        </ul>
      )}
      <h3>Classifications</h3>
      {classifications.length === 0 ? (
        <p className="muted">No classification answered.</p>
      ) : (
        <AnswerList list={classifications} questions={questions} />
      )}
    </section>
  );
}
