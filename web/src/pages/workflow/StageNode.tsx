import { Handle, type Node, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import type { Stage, StageWarning } from '../../api/types';
import { outputKind, REVIEW_OUTPUTS } from './workflow-model';

export interface StageNodeData extends Record<string, unknown> {
  stage: Stage;
  /** Live tasks waiting in the stage; undefined for a stage not saved yet. */
  count: number | undefined;
  warnings: StageWarning[];
  invalid: boolean;
}

export type StageNodeType = Node<StageNodeData, 'stage'>;

/** Where a source handle sits on the right edge, outputs spread top to bottom. */
function handleTop(index: number, of: number): string {
  return `${((index + 1) / (of + 1)) * 100}%`;
}

function SourceHandles({ stage }: { stage: Stage }) {
  const kind = outputKind(stage.type);
  if (kind === 'none') return null;
  if (kind === 'single') return <Handle type="source" position={Position.Right} id="0" />;
  if (kind === 'review') {
    return (
      <>
        {REVIEW_OUTPUTS.map((label, i) => (
          <Handle
            key={label}
            type="source"
            position={Position.Right}
            id={String(i)}
            className={i === 0 ? 'handle-accept' : 'handle-reject'}
            style={{ top: handleTop(i, 2) }}
            title={label}
          />
        ))}
      </>
    );
  }
  // Logic: one handle per output, and one more to add an output.
  const outputs = stage.next?.length ?? 0;
  return (
    <>
      {Array.from({ length: outputs + 1 }, (_, i) => (
        <Handle
          key={i}
          type="source"
          position={Position.Right}
          id={String(i)}
          className={i === outputs ? 'handle-new' : undefined}
          style={{ top: handleTop(i, outputs + 1) }}
          title={i === outputs ? 'New output' : `Output ${i + 1}`}
        />
      ))}
    </>
  );
}

/** One stage on the diagram: its name and type, its live count, and its warning if any. */
export const StageNode = memo(function StageNode({ data, selected }: NodeProps<StageNodeType>) {
  const { stage, count, warnings, invalid } = data;
  const failed = warnings.reduce((n, w) => n + (w.failedCount ?? 0), 0);
  const classes = ['stage-node', `stage-${stage.type.toLowerCase()}`];
  if (selected) classes.push('is-selected');
  if (invalid) classes.push('is-invalid');
  if (warnings.length > 0) classes.push('has-warning');
  return (
    <div className={classes.join(' ')} data-stage-id={stage.id}>
      {stage.type !== 'Start' && <Handle type="target" position={Position.Left} />}
      <div className="stage-node-type">{stage.type}</div>
      <div className="stage-node-name">{stage.name || stage.id}</div>
      <div className="stage-node-count" aria-label={`${count ?? 0} tasks in ${stage.name || stage.id}`}>
        {count === undefined ? 'not saved' : `${count} task${count === 1 ? '' : 's'}`}
      </div>
      {warnings.length > 0 && (
        <div className="stage-node-warning" role="img" aria-label={`Warning: ${failed} failed`}>
          ⚠ {failed} failed
          {warnings[0]?.lastError && <span className="stage-node-error">{warnings[0].lastError}</span>}
        </div>
      )}
      {invalid && <div className="stage-node-invalid">Needs fixing</div>}
      <SourceHandles stage={stage} />
    </div>
  );
});
