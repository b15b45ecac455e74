import { useState } from 'react';
import type { StageStatus } from '../../api/types';
import { useRerunStage, useWebhookLogs } from '../../api/workflow';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';

/** The delivery log of a Webhook stage, newest first, a page of ten at a time. */
function WebhookLog({ projectId, stageId }: { projectId: string; stageId: string }) {
  const [page, setPage] = useState(1);
  const logs = useWebhookLogs(projectId, stageId, page);
  if (logs.isPending) return <Loading what="the webhook log" />;
  if (logs.isError) return <ErrorNotice error={logs.error} />;
  if (logs.data.logs.length === 0) return <Empty title="No request has been sent yet." />;
  const pages = Math.max(1, Math.ceil(logs.data.total / 10));
  return (
    <>
      <table className="table compact" aria-label="Webhook log">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Answer</th>
            <th scope="col">Asset</th>
            <th scope="col">Attempt</th>
          </tr>
        </thead>
        <tbody>
          {logs.data.logs.map((l) => (
            <tr key={l._id} className={l.status === 200 ? '' : 'row-failed'}>
              <td>{new Date(l.date).toLocaleTimeString()}</td>
              <td>{l.status ?? l.error ?? '—'}</td>
              <td>{l.externalId}</td>
              <td>{l.attempt}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <nav className="pager" aria-label="Webhook log pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </nav>
      )}
    </>
  );
}

/** A Webhook or Plugin stage while it runs: its warning, the re-run action, the log. */
export function StageMonitor({ projectId, stage }: { projectId: string; stage: StageStatus }) {
  const rerun = useRerunStage(projectId);
  const kind = stage.type === 'Webhook' ? 'Webhook' : 'Plugin';
  return (
    <section className="monitor" aria-label="Stage activity">
      <h3>Activity</h3>
      <p>
        {stage.taskCount} task{stage.taskCount === 1 ? '' : 's'} waiting here.
      </p>
      {stage.warnings.map((w, i) => (
        <div key={i} className="warning" role="alert">
          <strong>
            {w.failedCount ?? 0} task{w.failedCount === 1 ? '' : 's'} failed in this stage
          </strong>
          {w.lastError && <p>Last error: {w.lastError}</p>}
          {w.lastFailedAt && <p className="muted">at {new Date(w.lastFailedAt).toLocaleString()}</p>}
        </div>
      ))}
      <button type="button" onClick={() => rerun.mutate({ stageId: stage.id, type: kind })} disabled={rerun.isPending}>
        Re-run {kind === 'Webhook' ? 'webhook' : 'plugin'}
      </button>
      {rerun.isSuccess && (
        <p role="status">
          {rerun.data
            ? `${rerun.data.queued} request${rerun.data.queued === 1 ? '' : 's'} queued${rerun.data.alreadyQueued > 0 ? `, ${rerun.data.alreadyQueued} already waiting` : ''}.`
            : 'Re-run requested.'}
        </p>
      )}
      {rerun.isError && <ErrorNotice place="form" error={rerun.error} />}
      {stage.type === 'Webhook' && (
        <>
          <h4>Webhook log</h4>
          <WebhookLog projectId={projectId} stageId={stage.id} />
        </>
      )}
    </section>
  );
}
