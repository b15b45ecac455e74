import { projectQuery } from '../api/projects';
import { queryClient } from '../api/query-client';
import { workTaskQuery } from '../api/work';
import { loadImage } from '../editor/media/image/useImage';
import { namesAnImage } from './asset-kind';

/**
 * Opening /work/tasks/:taskId: the task and its project are fetched with the console's first
 * script, beside the session check and the page's chunk, and the task's image starts loading and
 * decoding as soon as the task is known, while the editor's chunk arrives and its objects render
 * (they waited for one another before: the image's decode began after the 500 shapes' render).
 * The page's own queries and `useImage` then find them under way or done.
 */
export function prefetchWorkTask(taskId: string | undefined, search: URLSearchParams): void {
  if (!taskId) return;
  const project = search.get('project');
  if (project) void queryClient.prefetchQuery(projectQuery(project));
  // A failed fetch is left to the page, which shows it (an error is not cached as data).
  queryClient
    .fetchQuery(workTaskQuery(taskId))
    .then((task) => {
      if (namesAnImage(task.asset.data)) return loadImage(task.asset.data ?? '');
    })
    .catch(() => undefined);
}
