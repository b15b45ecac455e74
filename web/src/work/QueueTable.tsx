import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { sittingStart, takeNext, workKeys, workTaskPath, type QueueStage } from '../api/work';
import { errorText } from '../components/error-text';

/**
 * The stages a person may take tasks from, with what waits there and a Start button each: the
 * Work page across projects, and a project's own "Your work" page. Start takes the next task
 * (GET /project/{id}/next) and opens it in the editor.
 */
export function QueueTable({ rows, showProject = true }: { rows: QueueStage[]; showProject?: boolean }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [starting, setStarting] = useState<string | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);

  const start = async (row: QueueStage) => {
    const key = `${row.project._id}/${row.stageId}`;
    setStarting(key);
    setNote(undefined);
    try {
      const task = await takeNext(row.project._id, row.stageId);
      // The task just taken no longer waits: the counts are fetched again on return.
      void queryClient.invalidateQueries({ queryKey: workKeys.queue });
      if (!task) {
        setNote(`No task waits for you in ${row.stageName} of ${row.project.name}.`);
        await queryClient.invalidateQueries({ queryKey: workKeys.queue });
        return;
      }
      queryClient.setQueryData(workKeys.task(task._id), task);
      // "Task 1 of N" in the editor counts from here.
      sittingStart(task, true);
      await navigate(workTaskPath(task._id, row.project._id));
    } catch (err) {
      setNote(errorText(err));
    } finally {
      setStarting(undefined);
    }
  };

  return (
    <>
      {note && (
        <p className="work-note" role="status">
          {note}
        </p>
      )}
      <table className="table work-table">
        <thead>
          <tr>
            {showProject && <th scope="col">Project</th>}
            <th scope="col">Stage</th>
            <th scope="col">Kind</th>
            <th scope="col">Tasks waiting</th>
            <th scope="col">
              <span className="visually-hidden">Start</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = `${row.project._id}/${row.stageId}`;
            const name = row.stageName;
            return (
              <tr key={key}>
                {showProject && <td>{row.project.name}</td>}
                <td>{name}</td>
                <td>{row.stageType === 'Review' ? 'Review' : 'Labeling'}</td>
                <td className="num">
                  <QueueCounts row={row} />
                </td>
                <td>
                  <button
                    type="button"
                    className="primary"
                    disabled={starting !== undefined}
                    aria-label={`Start ${name} in ${row.project.name}`}
                    onClick={() => void start(row)}
                  >
                    {starting === key ? 'Starting…' : 'Start'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** "N waiting" (past the API's cap "1,000+"), then the caller's own tasks of the stage. */
function QueueCounts({ row }: { row: QueueStage }) {
  const mine = `${row.assignedToYou.toLocaleString('en-US')} assigned to you`;
  if (row.waiting === null) {
    return (
      <span title="The project shows labelers only the tasks assigned to them; Start takes a free one">{mine}</span>
    );
  }
  const waiting = `${row.waiting.toLocaleString('en-US')}${row.waitingCapped ? '+' : ''} waiting`;
  return (
    <>
      <span className="work-waiting">{waiting}</span>
      {row.assignedToYou > 0 && <span className="work-mine">{mine}</span>}
    </>
  );
}
