import { ErrorNotice } from '../../components/ErrorNotice';
import { useMemo, useState } from 'react';
import { useOutletContext } from 'react-router';
import { may } from '../../api/access';
import { useUpdateProject } from '../../api/projects';
import type { Project, Stage, StageStatus } from '../../api/types';
import { useStageStatus } from '../../api/workflow';
import { errorLookup, errorsUnder, fieldErrorsOf } from '../../components/field-errors';
import { errorText } from '../../components/error-text';
import { AddStageForm } from './AddStageForm';
import { StageForm } from './StageForm';
import { WorkflowDiagram } from './WorkflowDiagram';
import { WorkflowView } from './WorkflowView';
import { addStageAfter } from './workflow-insert';
import { blankStage, outputKind, removeStage, stageIndexOfField } from './workflow-model';

/**
 * The workflow editor: the diagram, the selected stage's settings beside it, and a save bar.
 * Edits stay in a draft until saved; live counts and warnings poll underneath.
 */
export default function WorkflowPage() {
  const project = useOutletContext<Project>();
  // Leads and Reviewers watch the workflow (counts, warnings); only Managers change it.
  return may(project, 'manage') ? <WorkflowEditor project={project} /> : <WorkflowView project={project} />;
}

function WorkflowEditor({ project }: { project: Project }) {
  const [draft, setDraft] = useState<Stage[]>(project.stages);
  const [dirty, setDirty] = useState(false);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [savedFrom, setSavedFrom] = useState(project.stages);
  const update = useUpdateProject(project._id);
  const statusQuery = useStageStatus(project._id);

  // A save (or another person's) arrives as a new project: take it unless the draft has edits.
  if (project.stages !== savedFrom) {
    setSavedFrom(project.stages);
    if (!dirty) setDraft(project.stages);
  }

  const status = useMemo(
    () => new Map<string, StageStatus>((statusQuery.data ?? []).map((s) => [s.id, s])),
    [statusQuery.data],
  );
  const errors = fieldErrorsOf(update.error);
  const invalidIndexes = useMemo(
    () => new Set(errors.map((e) => stageIndexOfField(e.field)).filter((i): i is number => i !== undefined)),
    [errors],
  );
  const edit = (stages: Stage[]) => {
    setDraft(stages);
    setDirty(true);
  };
  const selectedIndex = draft.findIndex((s) => s.id === selectedId);
  const selected = draft[selectedIndex];
  const stageErrorOf = errorLookup(errorsUnder(errors, `stages[${selectedIndex}]`));
  const save = () =>
    update.mutate(
      { stages: draft },
      {
        onSuccess: (saved) => {
          setDirty(false);
          setDraft(saved.stages);
        },
      },
    );
  const stageErrors = errors.filter((e) => e.field.startsWith('stages'));
  return (
    <div className="workflow-page">
      <div className="page-head">
        <h1>Workflow</h1>
        <div className="save-bar">
          {statusQuery.isError && (
            <span className="muted">Live counts unavailable: {errorText(statusQuery.error)}</span>
          )}
          {dirty && <span className="muted">Unsaved changes</span>}
          {update.isSuccess && !dirty && <span role="status">Workflow saved.</span>}
          <button
            type="button"
            disabled={!dirty}
            onClick={() => {
              setDraft(project.stages);
              setDirty(false);
              update.reset();
            }}
          >
            Discard changes
          </button>
          <button type="button" className="primary" onClick={save} disabled={update.isPending || !dirty}>
            {update.isPending ? 'Saving…' : 'Save workflow'}
          </button>
        </div>
      </div>
      {update.isError && (
        <ErrorNotice place="form" error={stageErrors.length > 0 ? 'The workflow was not saved:' : update.error}>
          {stageErrors.length > 0 && (
            <ul>
              {stageErrors.map((e) => {
                const stage = draft[stageIndexOfField(e.field) ?? -1];
                return (
                  <li key={e.field}>
                    {stage ? (
                      <button type="button" className="link" onClick={() => setSelectedId(stage.id)}>
                        {stage.name || stage.id}
                      </button>
                    ) : (
                      'Workflow'
                    )}
                    : {e.field.replace(/^stages\[\d+\]\.?/, '') || 'stage'} {e.message}
                  </li>
                );
              })}
            </ul>
          )}
        </ErrorNotice>
      )}
      <div className="workflow-body">
        <WorkflowDiagram
          stages={draft}
          status={status}
          selectedId={selectedId}
          invalidIndexes={invalidIndexes}
          onStages={edit}
          onSelect={setSelectedId}
        />
        <aside className="workflow-side">
          <AddStageForm
            after={selected && outputKind(selected.type) !== 'none' ? selected.name || selected.id : undefined}
            onAdd={(type, name) => {
              const stage = blankStage(type, name, draft);
              edit(addStageAfter(draft, selectedId, stage));
              setSelectedId(stage.id);
            }}
          />
          <label className="field" htmlFor="stage-picker">
            Edit stage
          </label>
          <select
            id="stage-picker"
            value={selectedId ?? ''}
            onChange={(e) => setSelectedId(e.target.value || undefined)}
          >
            <option value="">(choose a stage)</option>
            {draft.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name || s.id} ({s.type})
              </option>
            ))}
          </select>
          {selected ? (
            <StageForm
              key={selected.id}
              project={project}
              stage={selected}
              stages={draft}
              status={status.get(selected.id)}
              errorOf={stageErrorOf}
              onStages={edit}
              onRemove={() => {
                edit(removeStage(draft, selected.id));
                setSelectedId(undefined);
              }}
            />
          ) : (
            <p className="muted">Choose a stage on the diagram or in the list to edit its settings.</p>
          )}
        </aside>
      </div>
    </div>
  );
}
