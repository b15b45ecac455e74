import { useMemo, useState } from 'react';
import { may } from '../../api/access';
import type { Project, StageStatus } from '../../api/types';
import { useStageStatus } from '../../api/workflow';
import { StageMonitor } from './StageMonitor';
import { WorkflowDiagram } from './WorkflowDiagram';
import { edgeLabel } from './workflow-model';

const NO_ERRORS: ReadonlySet<number> = new Set();

/**
 * The workflow for the roles that may watch it but not change it (Lead, Reviewer): the diagram
 * with live counts and warnings, and for a chosen stage where it leads; a Lead also re-runs a
 * Webhook or Plugin stage (the API lets Leads re-run, not edit).
 */
export function WorkflowView({ project }: { project: Project }) {
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const statusQuery = useStageStatus(project._id);
  const status = useMemo(
    () => new Map<string, StageStatus>((statusQuery.data ?? []).map((s) => [s.id, s])),
    [statusQuery.data],
  );
  const selected = project.stages.find((s) => s.id === selectedId);
  const name = (id: string) => project.stages.find((s) => s.id === id)?.name || id;
  const live = selected ? status.get(selected.id) : undefined;
  return (
    <div className="workflow-page">
      <div className="page-head">
        <h1>Workflow</h1>
        <span className="muted">Managers change the workflow; you see where tasks are.</span>
      </div>
      <div className="workflow-body">
        <WorkflowDiagram
          stages={project.stages}
          status={status}
          selectedId={selectedId}
          invalidIndexes={NO_ERRORS}
          onStages={() => undefined}
          onSelect={setSelectedId}
          editable={false}
        />
        <aside className="workflow-side">
          {selected ? (
            <div className="stage-form" role="region" aria-label={`Stage ${selected.name || selected.id}`}>
              <h2>
                {selected.name || selected.id} <span className="muted">({selected.type})</span>
              </h2>
              <p>{live ? `${live.taskCount} task${live.taskCount === 1 ? '' : 's'} here now.` : ''}</p>
              {(selected.next ?? []).filter(Boolean).length > 0 && (
                <ul>
                  {(selected.next ?? []).map((target, i) =>
                    target ? (
                      <li key={i}>
                        {edgeLabel(selected, i) ?? 'Next'}: {name(target)}
                      </li>
                    ) : null,
                  )}
                </ul>
              )}
              {live && (selected.type === 'Webhook' || selected.type === 'Plugin') && may(project, 'import') && (
                <StageMonitor projectId={project._id} stage={live} />
              )}
            </div>
          ) : (
            <p className="muted">Choose a stage on the diagram to see where it leads.</p>
          )}
        </aside>
      </div>
    </div>
  );
}
