import { projectQuery } from '../api/projects';
import { queryClient } from '../api/query-client';
import { workTaskQuery } from '../api/work';
import { loadImage } from '../editor/media/image/useImage';
import { openSource } from '../editor/media/video/byte-source';
import { namesAnImage, namesAVideo } from './asset-kind';

/**
 * Opening /work/tasks/:taskId: the task and its project are fetched with the console's first
 * script, beside the session check and the page's chunk, and the task's image starts loading and
 * decoding as soon as the task is known, while the editor's chunk arrives and its objects render
 * (they waited for one another before: the image's decode began after the 500 shapes' render).
 * A video's first bytes are asked for at that moment too. The page's own queries, `useImage` and
 * the video's `openSource` then find them under way or done.
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
      // A video's first bytes (its index, often its first frames) are asked for at once too.
      if (namesAVideo(task.asset.data) && !task.asset.dataset?.length)
        void openSource(task.asset.data ?? '', 'video').catch(() => undefined);
    })
    .catch(() => undefined);
}
