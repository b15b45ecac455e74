import type { CategorySchema, Classification } from '../../schemas/category-schema.js';
import { answerFields } from './export-item-json.js';

/*
 * The answers of the JSON export as the original documents its export: every tools entry
 * carries its tool's `title`; every classification entry its question's `title` and `tool`
 * kind, and an option answer is the option's value ("Sunny"), not its schemaId; nested
 * classifications of objects and of options the same way. Stored answers keep the ids: only the
 * export is made readable. An ontology with nothing to name keeps the fast path (stored text as
 * it is).
 */

type Json = Record<string, unknown>;

export interface AnswerLists {
  tools: unknown[];
  classifications: unknown[];
  relations: unknown[];
}
const OPTION_KINDS = new Set(['radio', 'single-dropdown', 'checkbox', 'multi-dropdown']);

/** The signed mask link of one object of the task being written (`includeMask`). */
export type MaskLinkOf = (objectId: string) => string;

export class ReadableAnswers {
  private readonly tools = new Map<string, string>();
  private readonly questions = new Map<string, Classification>();
  private readonly segmentationPoints: boolean;

  /** `segmentationPoints`: segmentation objects keep their zones (`includeSegmentationPoints`). */
  constructor(schema: CategorySchema, opts: { segmentationPoints: boolean } = { segmentationPoints: true }) {
    this.segmentationPoints = opts.segmentationPoints;
    const walk = (list: readonly Classification[] | undefined) => {
      for (const c of list ?? []) {
        this.questions.set(c.schemaId, c);
        walk(c.classifications);
        for (const o of c.options ?? []) walk(o.children);
      }
    };
    for (const t of schema.tools ?? []) {
      this.tools.set(t.schemaId, t.title);
      walk(t.classifications);
    }
    walk(schema.classifications);
  }

  /**
   * `"tools":[...],"classifications":[...],"relations":[...]` of a stored answer, readable; with
   * `maskOf`, each segmentation or polygon object of a still image carries `masks: [link]`.
   */
  fields(text: string, maskOf?: MaskLinkOf): string {
    const plain = this.segmentationPoints || !text.includes('"segmentation"');
    if (!this.tools.size && !this.questions.size && plain && !maskOf) return answerFields(text);
    const { tools, classifications, relations } = this.lists(text, maskOf);
    return `"tools":${JSON.stringify(tools)},"classifications":${JSON.stringify(classifications)},"relations":${JSON.stringify(relations)}`;
  }

  /** The three lists of a stored answer, each entry readable (as `fields` writes them). */
  lists(text: string, maskOf?: MaskLinkOf): AnswerLists {
    const a = JSON.parse(text) as Json;
    const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);
    return {
      tools: list(a.tools ?? a.objects).map((t) => this.tool(t, maskOf)),
      classifications: list(a.classifications).map((c) => this.classification(c)),
      relations: list(a.relations),
    };
  }

  private tool(entry: unknown, maskOf: MaskLinkOf | undefined): unknown {
    if (!entry || typeof entry !== 'object') return entry;
    const t = entry as Json;
    const title = this.tools.get(String(t.schemaId));
    const nested = Array.isArray(t.classifications)
      ? { classifications: t.classifications.map((c) => this.classification(c)) }
      : {};
    const out: Json = { ...t, ...nested, ...(title !== undefined ? { title } : {}) };
    const shaped = (t.segmentation !== undefined && t.segmentation !== null) || Array.isArray(t.polygon);
    // GET /mask draws an object of a still image: entries of video frames (with `page`) get none.
    if (maskOf && shaped && typeof t.objectId === 'string' && t.page === undefined) out.masks = [maskOf(t.objectId)];
    if (!this.segmentationPoints) delete out.segmentation;
    return out;
  }

  private classification(entry: unknown): unknown {
    if (!entry || typeof entry !== 'object') return entry;
    const c = entry as Json;
    const q = this.questions.get(String(c.schemaId));
    if (!q) return c;
    const nested = Array.isArray(c.classifications)
      ? { classifications: c.classifications.map((n) => this.classification(n)) }
      : {};
    return { schemaId: c.schemaId, tool: q.tool, title: q.title, ...c, answer: this.answer(q, c.answer), ...nested };
  }

  private answer(q: Classification, answer: unknown): unknown {
    if (!OPTION_KINDS.has(q.tool)) return answer;
    const value = (id: unknown) => q.options?.find((o) => o.schemaId === id)?.value ?? id;
    return Array.isArray(answer) ? answer.map(value) : value(answer);
  }
}
