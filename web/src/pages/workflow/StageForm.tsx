import { ErrorNotice } from '../../components/ErrorNotice';
import type { Project, Stage, StageStatus } from '../../api/types';
import { CheckboxField, TextField } from '../../components/Field';
import { ListField } from '../../components/ListField';
import { ConsensusFields } from './ConsensusFields';
import { LogicFields } from './LogicFields';
import { StageMonitor } from './StageMonitor';
import { StageOutputs } from './StageOutputs';
import { WebhookFields } from './WebhookFields';

type ErrorOf = (field: string) => string | undefined;

/** Every setting of the selected stage, by its type; errors come back on the field they name. */
export function StageForm({
  project,
  stage,
  stages,
  status,
  errorOf,
  onStages,
  onRemove,
}: {
  project: Project;
  stage: Stage;
  stages: readonly Stage[];
  status: StageStatus | undefined;
  errorOf: ErrorOf;
  onStages: (stages: Stage[]) => void;
  onRemove: () => void;
}) {
  const change = (next: Stage) => onStages(stages.map((s) => (s.id === stage.id ? next : s)));
  const human = stage.type === 'Label' || stage.type === 'Review';
  return (
    <div className="stage-form" aria-label={`Settings of ${stage.name || stage.id}`} role="region">
      <h2>
        {stage.name || stage.id} <span className="muted">({stage.type})</span>
      </h2>
      <p className="muted">Stage id: {stage.id}</p>
      {errorOf('') && <ErrorNotice place="form" error={errorOf('')} />}
      <TextField
        label="Stage name"
        value={stage.name ?? ''}
        onChange={(name) => change({ ...stage, name })}
        error={errorOf('name')}
      />
      <StageOutputs stage={stage} stages={stages} onStages={onStages} errorOf={errorOf} />
      {human && (
        <fieldset>
          <legend>People</legend>
          <ListField
            label="Assignees (e-mails)"
            hint="Empty: everyone with the stage's role on the project."
            value={stage.assignedTo ?? []}
            onChange={(assignedTo) => change({ ...stage, assignedTo })}
            error={errorOf('assignedTo')}
          />
          <CheckboxField
            label="Give the task to the person of the previous stage"
            checked={stage.rememberAssignee ?? false}
            onChange={(rememberAssignee) => change({ ...stage, rememberAssignee })}
          />
          <CheckboxField
            label="Read only"
            checked={stage.readOnly ?? false}
            onChange={(readOnly) => change({ ...stage, readOnly })}
          />
        </fieldset>
      )}
      {stage.type === 'Webhook' && (
        <WebhookFields
          webhook={stage.webhook ?? { url: '' }}
          onChange={(webhook) => change({ ...stage, webhook })}
          errorOf={errorOf}
        />
      )}
      {stage.type === 'Plugin' && (
        <TextField
          label="Plugin id"
          value={stage.pluginId ?? ''}
          onChange={(pluginId) => change({ ...stage, pluginId })}
          error={errorOf('pluginId')}
        />
      )}
      {stage.type === 'Logic' && <LogicFields stage={stage} onChange={change} errorOf={errorOf} />}
      {stage.type === 'Consensus' && (
        <ConsensusFields
          config={stage.consensusConfig ?? {}}
          onChange={(consensusConfig) => change({ ...stage, consensusConfig })}
          errorOf={errorOf}
        />
      )}
      {(stage.type === 'Webhook' || stage.type === 'Plugin') && status && (
        <StageMonitor projectId={project._id} stage={status} />
      )}
      {stage.type !== 'Start' && (
        <button type="button" className="danger" onClick={onRemove}>
          Remove stage {stage.name || stage.id}
        </button>
      )}
    </div>
  );
}
