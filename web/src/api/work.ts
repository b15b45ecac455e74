import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../../src/client/schema';
import type { ApiBody, ApiData } from '../../../src/client/types';
import type { ApiAnswer } from '../editor/core/codec';
import { api, currentCsrfToken, unwrap } from './client';
import type { Project, ProjectListItem } from './types';
import { queryClient } from './query-client';
import { sessionQuery } from '../auth/useSession';

/** The stored answer of a task: `{tools, classifications, relations}` (docs/api.md). */
export type TaskAnswerBody = ApiAnswer;

/** The Task resource (DECISIONS 4) as the editor reads it, its answer in the editor's codec shape. */
export type WorkTask = Omit<components['schemas']['Task'], 'answer'> & { answer?: TaskAnswerBody };

/** One answer in an issue's thread (POST /issues/{id}/comment), as the contract defines it. */
export type IssueComment = components['schemas']['IssueComment'];

export type Issue = components['schemas']['Issue'];

/** One stage a person may take tasks from (GET /project/{id}/queue), with its project. */
export type QueueStage = ApiData<'/v2/project/{projectId}/queue', 'get'>['stages'][number] & {
  project: Pick<Project, '_id' | 'name'>;
};

export const workKeys = {
  queue: ['work', 'queue'] as const,
  task: (taskId: string) => ['work', 'task', taskId] as const,
  issues: (taskId: string) => ['work', 'issues', taskId] as const,
};

/**
 * The stages the caller may work, across their projects (the first hundred by name): one
 * GET /project/{id}/queue per project, which counts what /next could hand the caller (Labelers
 * only when the project has `queueCountsEnabled`).
 */
async function fetchQueue(): Promise<QueueStage[]> {
  const { projects } = await unwrap<{ projects: ProjectListItem[] }>(
    'GET',
    '/v2/listProjects',
    // Archived projects hand out no work here.
    api.GET('/v2/listProjects', { params: { query: { page: 1, limit: 100, sort: 'name', archived: 'false' } } }),
  );
  const perProject = await Promise.all(projects.map(fetchProjectQueue));
  return perProject.flat();
}

/** GET /project/{id}/queue: the stages of one project the caller may take tasks from. */
async function fetchProjectQueue(project: Pick<Project, '_id' | 'name'>): Promise<QueueStage[]> {
  const { stages } = await unwrap<ApiData<'/v2/project/{projectId}/queue', 'get'>>(
    'GET',
    '/v2/project/{projectId}/queue',
    api.GET('/v2/project/{projectId}/queue', { params: { path: { projectId: project._id } } }),
  );
  return stages.map((stage) => ({ ...stage, project: { _id: project._id, name: project.name } }));
}

export function useWorkQueue() {
  return useQuery({ queryKey: workKeys.queue, queryFn: fetchQueue, refetchInterval: 10_000 });
}

/** One project's stages for the caller (its "Your work" page), under the queue's key. */
export function useProjectQueue(project: Pick<Project, '_id' | 'name'>) {
  return useQuery({
    queryKey: [...workKeys.queue, project._id],
    queryFn: () => fetchProjectQueue(project),
    refetchInterval: 10_000,
  });
}

/** GET /project/{id}/next: takes (assigns to the caller) the next task of a stage, or null. */
export async function takeNext(projectId: string, stageId: string): Promise<WorkTask | null> {
  const { task } = await unwrap<{ task: WorkTask | null }>(
    'GET',
    '/v2/project/{projectId}/next',
    api.GET('/v2/project/{projectId}/next', { params: { path: { projectId }, query: { stageId } } }),
  );
  return task;
}

/** The editor's address for a task; the project rides along so the page can load it at once. */
export function workTaskPath(taskId: string, projectId: string): string {
  return `/work/tasks/${taskId}?project=${encodeURIComponent(projectId)}`;
}

/** GET /task/{id} for the editor: `useWorkTask`, or a fetch started with the first script. */
export const workTaskQuery = (taskId: string) => ({
  queryKey: workKeys.task(taskId),
  queryFn: async () => {
    // A task this tab gave back when the person left it (a reload, the back button) is taken again
    // first: the release may still be on its way, and take renews the task so a late one is refused.
    if (leftTask() === taskId) {
      forgetLeftTask();
      // Opened with the console's first script: the write waits for the session's CSRF token.
      if (!currentCsrfToken()) await queryClient.fetchQuery(sessionQuery).catch(() => undefined);
      await takeTask(taskId).catch(() => undefined);
    }
    return (
      await unwrap<{ task: WorkTask }>(
        'GET',
        '/v2/task/{taskId}',
        api.GET('/v2/task/{taskId}', { params: { path: { taskId } } }),
      )
    ).task;
  },
  // The editor owns the answer once open: a refetch must not replace work in progress.
  staleTime: Infinity,
  refetchOnWindowFocus: false,
});

export function useWorkTask(taskId: string) {
  return useQuery(workTaskQuery(taskId));
}

type AnnotateBody = ApiBody<'/v2/annotate/{taskId}', 'post'>;

/** POST /annotate/{taskId}: saves a draft, or with `submit` moves the task out of its stage. */
export async function annotate(
  taskId: string,
  answer: TaskAnswerBody,
  durationMs: number,
  submit: boolean,
  /** The painted layer saved with the answer: a link from uploadLayer ("" removes it); undefined leaves it. */
  layer?: LayerLink,
): Promise<WorkTask> {
  // The editor's answer is the stored shape, typed more loosely than the document's.
  const body = { answer, duration: durationMs, ...layer } as AnnotateBody;
  return (
    await unwrap<{ task: WorkTask }>(
      'POST',
      '/v2/annotate/{taskId}',
      api.POST('/v2/annotate/{taskId}', {
        params: { path: { taskId }, query: submit ? { nextStage: 'true' } : {} },
        body,
      }),
    )
  ).task;
}

/** POST /review/{taskId}: Accepted leaves by the stage's first output, Rejected by its second. */
export async function review(taskId: string, reviewStatus: 'Accepted' | 'Rejected'): Promise<WorkTask> {
  return (
    await unwrap<{ task: WorkTask }>(
      'POST',
      '/v2/review/{taskId}',
      api.POST('/v2/review/{taskId}', { params: { path: { taskId } }, body: { reviewStatus } }),
    )
  ).task;
}

/** POST /task/{taskId}/skip (an extension): the task stays in its stage; `/next` offers others first. */
export async function skipTask(taskId: string): Promise<WorkTask> {
  return (
    await unwrap<{ task: WorkTask }>(
      'POST',
      '/v2/task/{taskId}/skip',
      api.POST('/v2/task/{taskId}/skip', { params: { path: { taskId } } }),
    )
  ).task;
}

/** POST /task/{taskId}/release (an extension): gives a task you hold back to its stage. */
export async function releaseTask(taskId: string): Promise<WorkTask> {
  return (
    await unwrap<{ task: WorkTask }>(
      'POST',
      '/v2/task/{taskId}/release',
      api.POST('/v2/task/{taskId}/release', { params: { path: { taskId } }, body: {} }),
    )
  ).task;
}

/** POST /task/{taskId}/take (an extension): takes a named free task (or renews one you hold). */
export async function takeTask(taskId: string): Promise<WorkTask> {
  return (
    await unwrap<{ task: WorkTask }>(
      'POST',
      '/v2/task/{taskId}/take',
      api.POST('/v2/task/{taskId}/take', { params: { path: { taskId } } }),
    )
  ).task;
}

const LEFT_KEY = 'annotary.leftTask';

/** The task this tab released when the person left the editor, if any. */
export function leftTask(): string | null {
  try {
    return sessionStorage.getItem(LEFT_KEY);
  } catch {
    return null;
  }
}

export function forgetLeftTask(): void {
  try {
    sessionStorage.removeItem(LEFT_KEY);
  } catch {
    // Storage off: a reopened task then shows why it cannot be read.
  }
}

/**
 * Leaving the editor (pagehide, another console page): the untouched task goes back to its stage.
 * A keepalive fetch outlives the page; it carries the session cookie and the CSRF token like every
 * console write, and the task's `updatedAt`, so the server refuses it once the editor reopened the
 * task (take renews it). The tab remembers the task to take it back if the person returns.
 */
export function releaseOnLeave(taskId: string, updatedAt: string, csrf: string | undefined): void {
  try {
    sessionStorage.setItem(LEFT_KEY, taskId);
  } catch {
    // Storage off: nothing to take back later.
  }
  void fetch(`/v2/task/${encodeURIComponent(taskId)}/release`, {
    method: 'POST',
    keepalive: true,
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    body: JSON.stringify({ updatedAt }),
  }).catch(() => undefined);
}

export type QueuePosition = ApiData<'/v2/task/{taskId}/position', 'get'>;

/**
 * When this tab started working a stage: the position counts what was finished since. It is the
 * server's time (the `updatedAt` of the first task the tab took or opened there, a claim's time),
 * so a browser clock that is off does not matter; a task held since long ago starts the count now.
 * Start on the work queue starts it again.
 */
export function sittingStart(task: Pick<WorkTask, 'project' | 'stage' | 'updatedAt'>, restart = false): string {
  const key = `annotary.sitting:${task.project}:${task.stage}`;
  const fresh = Date.now() - Date.parse(task.updatedAt) < 12 * 3600_000 ? task.updatedAt : new Date().toISOString();
  try {
    const kept = restart ? null : sessionStorage.getItem(key);
    if (kept) return kept;
    sessionStorage.setItem(key, fresh);
  } catch {
    // Storage off: each task counts from itself.
  }
  return fresh;
}

/** GET /task/{taskId}/position: "Task 3 of 12" for the task you hold. */
export function useQueuePosition(task: Pick<WorkTask, '_id' | 'project' | 'stage' | 'updatedAt'>, enabled: boolean) {
  return useQuery({
    queryKey: ['work', 'position', task._id],
    enabled,
    staleTime: Infinity,
    queryFn: async () =>
      unwrap<QueuePosition>(
        'GET',
        '/v2/task/{taskId}/position',
        api.GET('/v2/task/{taskId}/position', {
          params: { path: { taskId: task._id }, query: { since: sittingStart(task) } },
        }),
      ),
  });
}

/**
 * A draft sent while the page goes away (pagehide): a keepalive fetch outlives the page, which
 * the typed client's fetch does not promise. It carries the session cookie and the CSRF token.
 */
/**
 * A painted layer's link as annotate saves it: the brush layer's, a volume's voxel layer's, or
 * a video's changed frames' brush layers.
 */
export type LayerLink =
  { brushDataUrl: string } | { medicalBrushDataUrl: string } | { brushFrames: { page: number; url: string }[] };

/**
 * The task's painted layer stored as one file: the brush layer's PNG (POST /task/{id}/brush) or
 * the voxel layer's `.seg.nrrd` (POST /task/{id}/medical-brush), the file's bytes as the body.
 * Answers the link annotate takes. The task itself does not change.
 */
export async function uploadLayer(
  taskId: string,
  file: Blob,
  field: 'brushDataUrl' | 'medicalBrushDataUrl' = 'brushDataUrl',
): Promise<LayerLink> {
  const csrf = currentCsrfToken();
  const volume = field === 'medicalBrushDataUrl';
  const res = await fetch(`/v2/task/${encodeURIComponent(taskId)}/${volume ? 'medical-brush' : 'brush'}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': volume ? 'application/octet-stream' : 'image/png',
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
    },
    body: file,
  });
  const json = (await res.json().catch(() => null)) as {
    data?: Record<string, string | undefined>;
    message?: string;
  } | null;
  const url = json?.data?.[field];
  const what = volume ? 'voxel layer' : 'brush layer';
  if (!res.ok || !url) throw new Error(json?.message ?? `The ${what} could not be saved (${res.status}).`);
  return volume ? { medicalBrushDataUrl: url } : { brushDataUrl: url };
}

/** A video frame's brush layer uploaded (POST /task/{id}/brush): the link an item of `brushFrames` takes. */
export async function uploadFrameLayer(taskId: string, png: Blob): Promise<string> {
  const link = await uploadLayer(taskId, png);
  return 'brushDataUrl' in link ? link.brushDataUrl : '';
}

export function saveDraftOnLeave(taskId: string, answer: TaskAnswerBody, durationMs: number, csrf: string | undefined) {
  const body = JSON.stringify({ answer, duration: durationMs });
  // keepalive bodies are limited to 64 KiB by the browser; a bigger draft is left to the last autosave.
  if (body.length > 60_000) return false;
  void fetch(`/v2/annotate/${encodeURIComponent(taskId)}`, {
    method: 'POST',
    keepalive: true,
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    body,
  }).catch(() => undefined);
  return true;
}

export function useTaskIssues(taskId: string) {
  return useQuery({
    queryKey: workKeys.issues(taskId),
    queryFn: async () =>
      (
        await unwrap<{ issues: Issue[]; total: number }>(
          'GET',
          '/v2/issues',
          api.GET('/v2/issues', { params: { query: { labelTask: taskId, limit: 100, sort: 'createdAt' } } }),
        )
      ).issues,
  });
}

type IssueBody = ApiBody<'/v2/issues', 'post'>;

export function useCreateIssue(taskId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Omit<IssueBody, 'labelTask'>) =>
      (
        await unwrap<{ issue: Issue }>(
          'POST',
          '/v2/issues',
          api.POST('/v2/issues', { body: { ...body, labelTask: taskId } }),
        )
      ).issue,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workKeys.issues(taskId) }),
  });
}

export function useSetIssueStatus(taskId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ issueId, status }: { issueId: string; status: 'Open' | 'Resolved' }) =>
      (
        await unwrap<{ issue: Issue }>(
          'POST',
          '/v2/issues/{issueId}',
          api.POST('/v2/issues/{issueId}', { params: { path: { issueId } }, body: { status } }),
        )
      ).issue,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workKeys.issues(taskId) }),
  });
}

/**
 * The size the editor measured for an asset whose metadata has none (the server keeps it only
 * then). Best effort: a refusal changes nothing for the person working.
 */
export async function fillAssetSize(assetId: string, width: number, height: number): Promise<void> {
  await unwrap<unknown>(
    'PUT',
    '/v2/asset/{assetId}/size',
    api.PUT('/v2/asset/{assetId}/size', { params: { path: { assetId } }, body: { width, height } }),
  ).catch(() => undefined);
}

/**
 * POST /issues/{id}/comment: an answer in the issue's thread. Both views of the task's issues
 * (the editor's and the console's task page) read it again.
 */
export function useCommentIssue(taskId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ issueId, content }: { issueId: string; content: string }) =>
      (
        await unwrap<{ issue: Issue }>(
          'POST',
          '/v2/issues/{issueId}/comment',
          api.POST('/v2/issues/{issueId}/comment', { params: { path: { issueId } }, body: { content } }),
        )
      ).issue,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: workKeys.issues(taskId) }),
        queryClient.invalidateQueries({ queryKey: ['task', taskId, 'issues'] }),
      ]),
  });
}

/** The organization's plugins that answer the editor's Assist (those registered with an assistUrl). */
export function useAssistPlugins(enabled: boolean) {
  return useQuery({
    queryKey: ['work', 'assist-plugins'],
    enabled,
    staleTime: 60_000,
    queryFn: async () =>
      (
        await unwrap<ApiData<'/v2/plugins', 'get'>>(
          'GET',
          '/v2/plugins',
          api.GET('/v2/plugins', { params: { query: { page: 1, limit: 100 } } }),
        )
      ).plugins.filter((p) => !!p.assistUrl),
  });
}

type AssistBody = ApiBody<'/v2/task/{taskId}/assist', 'post'>;
export type AssistAnswer = ApiData<'/v2/task/{taskId}/assist', 'post'>['assist'];

/** POST /task/{taskId}/assist: the plugin's candidate for the clicks (a mask PNG or zones). */
export async function requestAssist(taskId: string, body: AssistBody): Promise<AssistAnswer> {
  return (
    await unwrap<ApiData<'/v2/task/{taskId}/assist', 'post'>>(
      'POST',
      '/v2/task/{taskId}/assist',
      api.POST('/v2/task/{taskId}/assist', { params: { path: { taskId } }, body }),
    )
  ).assist;
}

type PctValidationBody = ApiBody<'/v2/task/{taskId}/pctValidation', 'post'>;
export type PctValidation = ApiData<'/v2/task/{taskId}/pctValidation', 'post'>['validation'];

/**
 * POST /task/{taskId}/pctValidation: the project's external validator's verdict on the answer
 * about to be submitted (nothing is stored). `frame` is the frame in view, from 0.
 */
export async function checkPctAnswer(taskId: string, answer: TaskAnswerBody, frame: number): Promise<PctValidation> {
  // The editor's answer is the stored shape, typed more loosely than the document's.
  const body = { answer, frame } as PctValidationBody;
  return (
    await unwrap<ApiData<'/v2/task/{taskId}/pctValidation', 'post'>>(
      'POST',
      '/v2/task/{taskId}/pctValidation',
      api.POST('/v2/task/{taskId}/pctValidation', { params: { path: { taskId } }, body }),
    )
  ).validation;
}
