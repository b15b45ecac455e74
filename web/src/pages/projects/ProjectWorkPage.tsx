import { useOutletContext } from 'react-router';
import { projectRole } from '../../api/access';
import type { Project } from '../../api/types';
import { useProjectQueue } from '../../api/work';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { QueueTable } from '../../work/QueueTable';
import '../../work/work.css';

/**
 * /projects/:id/work: the caller's work in this project, the page a Labeler or Reviewer lands
 * on: the stages they may work in, what waits there, and Start.
 */
export default function ProjectWorkPage() {
  const project = useOutletContext<Project>();
  const queue = useProjectQueue(project);
  const role = projectRole(project);
  return (
    <div className="work-queue">
      <div className="page-head">
        <h1>Your work</h1>
      </div>
      <p className="muted">
        Your role here: {role}.{' '}
        {role === 'Labeler' ? 'You label in the Label stages.' : 'You work in the Label and Review stages.'} Start takes
        the next task (highest priority, then oldest) and assigns it to you; a task you already hold comes first.
      </p>
      {queue.isPending && <Loading what="your stages" />}
      {queue.isError && <ErrorNotice error={queue.error} onRetry={() => void queue.refetch()} />}
      {queue.data?.length === 0 && (
        <Empty title="There is no stage for you to work in here.">
          <p>The project has no Label stage{role === 'Labeler' ? '' : ' or Review stage'} open to you.</p>
        </Empty>
      )}
      {!!queue.data?.length && <QueueTable rows={queue.data} showProject={false} />}
    </div>
  );
}
