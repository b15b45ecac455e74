import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Stage } from '../../schemas/stage.js';
import type { ProjectRow } from '../../store/schema.js';
import { parseJson } from '../../stored-json.js';

/** What deliveries need of a project's JSON documents, parsed. */
export interface ProjectView {
  stages: Stage[];
  categorySchema: CategorySchema;
  /** Tool titles by schemaId: what a tool object without a title gets. */
  toolTitles: Map<string, string>;
}

interface CachedView extends ProjectView {
  stagesText: string;
  schemaText: string;
}

const EMPTY_SCHEMA: CategorySchema = { tools: [], classifications: [], relations: [] };

/**
 * Parsed stages and ontologies by project, reused while the stored text is the same: parsing
 * the ontology for every delivery was a cost that grew with its size. The texts are compared
 * whole (not by updated_at, which two quick edits can share), so an edit is seen at once.
 */
export class ProjectViews {
  private readonly views = new Map<string, CachedView>();

  constructor(private readonly max = 256) {}

  of(row: ProjectRow): ProjectView {
    const hit = this.views.get(row.id);
    if (hit && hit.stagesText === row.stages && hit.schemaText === row.category_schema) return hit;
    const categorySchema = parseJson<CategorySchema>(row.category_schema, EMPTY_SCHEMA);
    const view: CachedView = {
      stagesText: row.stages,
      schemaText: row.category_schema,
      stages: parseJson<Stage[]>(row.stages, []),
      categorySchema,
      toolTitles: new Map((categorySchema.tools ?? []).map((t) => [t.schemaId, t.title])),
    };
    this.views.delete(row.id);
    if (this.views.size >= this.max) this.views.delete(this.views.keys().next().value as string);
    this.views.set(row.id, view);
    return view;
  }
}
