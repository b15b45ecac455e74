import type { ClassificationAnswer, EditorAnswer, EditorObject, EditorRelation, Geometry } from './answer';
import type { Ontology } from './ontology';
import { toolFor } from './tools';

/** The answer as the API holds it: `{tools, classifications, relations}`. */
export interface ApiAnswer {
  tools?: Record<string, unknown>[];
  objects?: Record<string, unknown>[];
  classifications?: unknown[];
  relations?: unknown[];
  /** A point-cloud segmentation: class ids per point of each labelled frame (docs/api.md). */
  pointLabels?: unknown[];
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
export function newId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The wire's value of a kind as the editor's geometry, read by the kind's tool from the entry
 * (under the kind's key, or over the tool's `entryKeys`); null when it has none.
 */
function readGeometry(kind: string, entry: Record<string, unknown>): Geometry | null {
  const tool = toolFor(kind);
  const raw = tool?.entryKeys
    ? Object.fromEntries(tool.entryKeys.filter((k) => k in entry).map((k) => [k, entry[k]]))
    : entry[kind];
  const value = tool?.read(raw);
  return tool && value ? ({ kind: tool.kind, value } as Geometry) : null;
}

/** The keys of an entry its kind's value takes. */
function geometryKeys(kind: string): readonly string[] {
  return toolFor(kind)?.entryKeys ?? [kind];
}

function readClassifications(list: unknown): ClassificationAnswer[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRec).flatMap((c) =>
    typeof c.schemaId === 'string'
      ? [
          {
            schemaId: c.schemaId,
            answer: (c.answer ?? null) as ClassificationAnswer['answer'],
            ...(Array.isArray(c.classifications) ? { classifications: readClassifications(c.classifications) } : {}),
            ...(typeof c.page === 'number' ? { page: c.page } : {}),
            ...(c.interpolationStopped === true ? { interpolationStopped: true } : {}),
          },
        ]
      : [],
  );
}

/**
 * The API's answer in the editor's terms. Objects whose tool the editor does not draw (a brush's
 * mask...) are not lost: they stay in `kept` and go back out unchanged, as the answer's parts
 * other than objects, questions and relations do in `extra`.
 */
export function fromApi(
  answer: ApiAnswer | null | undefined,
  ontology: Ontology,
): { value: EditorAnswer; kept: Record<string, unknown>[] } {
  const kinds = new Map((ontology.tools ?? []).map((t) => [t.schemaId, t.tool]));
  const objects: EditorObject[] = [];
  const kept: Record<string, unknown>[] = [];
  for (const raw of answer?.tools ?? answer?.objects ?? []) {
    const kind = typeof raw.schemaId === 'string' ? kinds.get(raw.schemaId) : undefined;
    const geometry = kind ? readGeometry(kind, raw) : null;
    if (!kind || !geometry) {
      kept.push(raw);
      continue;
    }
    const { objectId, schemaId, classifications, ...others } = raw;
    const taken = geometryKeys(kind);
    const rest = Object.fromEntries(Object.entries(others).filter(([k]) => !taken.includes(k)));
    // A frame's or a page's object carries `page` (0-based); anything else under that name stays as it was.
    const { page, ...extra } = rest;
    const onPage = typeof page === 'number' && Number.isInteger(page) && page >= 0;
    objects.push({
      objectId: typeof objectId === 'string' ? objectId : newId(),
      schemaId: schemaId as string,
      geometry,
      ...(onPage ? { where: { page } } : {}),
      classifications: readClassifications(classifications),
      extra: onPage || page === undefined ? extra : rest,
    });
  }
  const relations: EditorRelation[] = (answer?.relations ?? []).filter(isRec).flatMap((r) => {
    if (typeof r.schemaId !== 'string') return [];
    const { schemaId, relationId, objectIds, ...extra } = r;
    return [
      {
        schemaId,
        relationId: typeof relationId === 'string' ? relationId : newId(),
        objectIds: Array.isArray(objectIds) ? objectIds.filter((id): id is string => typeof id === 'string') : [],
        extra,
      },
    ];
  });
  const { tools: _t, objects: _o, classifications: _c, relations: _r, ...others } = answer ?? {};
  const extra = Object.keys(others).length ? { extra: others } : {};
  return {
    value: { objects, classifications: readClassifications(answer?.classifications), relations, ...extra },
    kept,
  };
}

/** The geometry's keys of the wire's entry: its kind's key, or the tool's `entryKeys`. */
function writeGeometry(g: Geometry): Record<string, unknown> {
  const tool = toolFor(g.kind);
  const value = tool ? tool.write(g.value) : g.value;
  return tool?.entryKeys ? (value as Record<string, unknown>) : { [g.kind]: value };
}

/** The editor's answer as the API takes it (geometry in the medium's coordinates under its tool kind). */
export function toApi(
  answer: EditorAnswer,
  kept: Record<string, unknown>[] = [],
): Required<Pick<ApiAnswer, 'tools' | 'classifications' | 'relations'>> & ApiAnswer {
  return {
    ...answer.extra,
    tools: [
      ...answer.objects.map((o) => ({
        ...o.extra,
        objectId: o.objectId,
        schemaId: o.schemaId,
        ...writeGeometry(o.geometry),
        ...(o.where?.page !== undefined ? { page: o.where.page } : {}),
        classifications: o.classifications,
      })),
      ...kept,
    ],
    classifications: answer.classifications,
    relations: answer.relations.map((r) => ({
      ...r.extra,
      schemaId: r.schemaId,
      relationId: r.relationId,
      objectIds: r.objectIds,
    })),
  };
}
