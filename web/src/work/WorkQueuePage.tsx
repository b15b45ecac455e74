import { Link, useLocation } from 'react-router';
import { useWorkQueue } from '../api/work';
import { Empty, Loading } from '../components/States';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueueTable } from './QueueTable';
import './work.css';

/** /work: the Label and Review stages the person may work in, with the tasks waiting there. */
export default function WorkQueuePage() {
  const queue = useWorkQueue();
  // What the editor did on the way here ("Released street-1: it waits in Labeling again.").
  const state: unknown = useLocation().state;
  const done =
    state && typeof state === 'object' && 'done' in state && typeof state.done === 'string' ? state.done : '';
  return (
    <div className="work-queue">
      <div className="page-head">
        <h1>Work</h1>
      </div>
      <p className="muted">
        The labeling and review stages you may work in. Start takes the next task (highest priority, then oldest) and
        assigns it to you; a task you already hold comes first.
      </p>
      <p className="work-done" role="status">
        {done}
      </p>
      {queue.isPending && <Loading what="your stages" />}
      {queue.isError && <ErrorNotice error={queue.error} onRetry={() => void queue.refetch()} />}
      {queue.data?.length === 0 && (
        <Empty title="There is no stage for you to work in.">
          <p>
            A project manager adds you to a project as a Labeler or Reviewer. <Link to="/projects">Projects</Link>
          </p>
        </Empty>
      )}
      {!!queue.data?.length && <QueueTable rows={queue.data} />}
    </div>
  );
}
