import { useMemo, useState } from 'react';
import { Link, useOutletContext, useParams } from 'react-router';
import { may } from '../../api/access';
import { useTask, useTaskHistory, useTaskIssues } from '../../api/tasks';
import type { Project } from '../../api/types';
import { Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { type ApiAnswer, fromApi } from '../../editor/core/codec';
import type { Ontology } from '../../editor/core/ontology';
import { TaskActions } from './TaskActions';
import { TaskAnswer } from './TaskAnswer';
import { TaskAsset } from './TaskAsset';
import { TaskIssues } from './TaskIssues';
import { spoken, TaskTimeline, when } from './TaskTimeline';
import { labelWork, labelWorkWords } from '../../work/labelled-by';
import './tasks.css';

/** One task: its asset with the answer drawn read-only, the answer in words, history, issues, actions. */
export default function TaskPage() {
  const project = useOutletContext<Project>();
  const { taskId = '' } = useParams();
  const task = useTask(taskId);
  const history = useTaskHistory(taskId);
  const issues = useTaskIssues(taskId);
  const [selectedId, setSelectedId] = useState<string>();
  const ontology = project.categorySchema as Ontology;
  const answer = useMemo(
    () => fromApi((task.data?.answer ?? null) as ApiAnswer | null, ontology).value,
    [task.data?.answer, ontology],
  );
  const back = (
    <p>
      <Link to={`/projects/${project._id}/tasks`}>← All tasks</Link>
    </p>
  );
  if (task.isPending) return <Loading what="the task" />;
  if (task.isError)
    return (
      <div>
        {back}
        <ErrorNotice error={task.error} onRetry={() => void task.refetch()} />
      </div>
    );
  const t = task.data;
  const issueList = issues.data?.issues ?? [];
  return (
    <div className="task-page">
      {back}
      <h1>Task {t.externalId || t._id}</h1>
      <dl className="task-facts">
        <div>
          <dt>Stage</dt>
          <dd>{t.stageName || t.stage}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{t.status}</dd>
        </div>
        <div>
          <dt>Priority</dt>
          <dd>{t.priority}</dd>
        </div>
        <div>
          <dt>Assignee</dt>
          <dd>{t.assignee ?? 'nobody'}</dd>
        </div>
        <div>
          <dt>Review</dt>
          <dd>{t.reviewStatus ?? 'none'}</dd>
        </div>
        <div>
          <dt>Labelled by</dt>
          <dd>{history.data ? labelWorkWords(labelWork(history.data)) : history.isError ? 'not known' : '…'}</dd>
        </div>
        <div>
          <dt>Time spent</dt>
          <dd>{spoken(t.totalDuration)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{when(t.createdAt)}</dd>
        </div>
      </dl>
      <div className="task-layout">
        <TaskAsset
          url={t.asset.data}
          objects={answer.objects}
          ontology={ontology}
          issues={issueList}
          selectedId={selectedId}
          onSelect={setSelectedId}
          brushUrl={t.brushDataUrl}
        />
        <div className="task-side">
          <TaskAnswer
            ontology={ontology}
            objects={answer.objects}
            classifications={answer.classifications}
            selectedId={selectedId}
            onSelect={setSelectedId}
          />
          {may(project, 'import') && <TaskActions key={t._id} project={project} task={t} />}
        </div>
      </div>
      <section className="card" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {history.isPending && <Loading what="the history" />}
        {history.isError && <ErrorNotice error={history.error} onRetry={() => void history.refetch()} />}
        {history.data && <TaskTimeline history={history.data} current={t.stageName || t.stage} />}
      </section>
      <section className="card" aria-labelledby="issues-title">
        <h2 id="issues-title">Issues</h2>
        {issues.isPending && <Loading what="the issues" />}
        {issues.isError && <ErrorNotice error={issues.error} onRetry={() => void issues.refetch()} />}
        {issues.data && <TaskIssues taskId={t._id} issues={issueList} objects={answer.objects} ontology={ontology} />}
      </section>
    </div>
  );
}
