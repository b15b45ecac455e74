import type { Project } from '../../api/types';
import { stagesInFlowOrder } from '../workflow/flow-order';
import { outputKind } from '../workflow/workflow-model';

/**
 * The short list a new project's Manager goes through before labeling can start: an ontology,
 * a workflow that takes tasks to people and on to an end, assets, and people to do the work.
 * Each item is done or not from the project as the API answers it; no state of its own.
 */
export interface SetupItem {
  key: 'ontology' | 'workflow' | 'assets' | 'people';
  title: string;
  done: boolean;
  /** What the project has now, in words. */
  detail: string;
  /** The project page where the item is done. */
  path: 'ontology' | 'workflow' | 'assets' | 'settings';
  action: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function ontologyItem(p: Project): SetupItem {
  const tools = p.categorySchema.tools.length;
  const questions = p.categorySchema.classifications.length;
  const done = tools + questions > 0;
  return {
    key: 'ontology',
    title: 'Ontology',
    done,
    detail: done
      ? `${plural(tools, 'tool')}, ${plural(questions, 'question')}`
      : 'No tools or questions yet: say what labelers mark.',
    path: 'ontology',
    action: done ? 'Edit the ontology' : 'Set up the ontology',
  };
}

/** Stages whose outputs are not all connected: a task would have nowhere to go. */
function openEnds(p: Project): string[] {
  return p.stages
    .filter((s) => outputKind(s.type) !== 'none' && ((s.next ?? []).length === 0 || (s.next ?? []).includes('')))
    .map((s) => s.name || s.id);
}

function workflowItem(p: Project): SetupItem {
  const open = openEnds(p);
  const labels = p.stages.some((s) => s.type === 'Label');
  const done = labels && open.length === 0;
  const flow = stagesInFlowOrder(p.stages)
    .map((s) => s.name || s.id)
    .join(' → ');
  return {
    key: 'workflow',
    title: 'Workflow',
    done,
    detail: !labels
      ? 'No Label stage: nobody would be handed a task.'
      : open.length > 0
        ? `Not connected onwards: ${open.join(', ')}.`
        : flow,
    path: 'workflow',
    action: 'Review the workflow',
  };
}

function assetsItem(p: Project): SetupItem {
  const n = p.assetCount ?? 0;
  return {
    key: 'assets',
    title: 'Assets',
    done: n > 0,
    detail: n > 0 ? `${plural(n, 'asset')} imported` : 'Nothing to label yet: import images, video, text…',
    path: 'assets',
    action: n > 0 ? 'Import more assets' : 'Import assets',
  };
}

function peopleItem(p: Project): SetupItem {
  const workers = p.assignedTo.filter((m) => m.role !== 'Manager');
  const roles = ['Lead', 'Reviewer', 'Labeler'] as const;
  const counts = roles
    .map((r) => [r, workers.filter((m) => m.role === r).length] as const)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => plural(n, r));
  return {
    key: 'people',
    title: 'People',
    done: workers.length > 0,
    detail: workers.length > 0 ? counts.join(', ') : 'Only managers so far: add the people who label and review.',
    path: 'settings',
    action: 'Add people',
  };
}

export function setupChecklist(p: Project): SetupItem[] {
  return [ontologyItem(p), workflowItem(p), assetsItem(p), peopleItem(p)];
}

export function setupDone(p: Project): boolean {
  return setupChecklist(p).every((i) => i.done);
}
