import {
  Background,
  type Connection,
  Controls,
  type Edge,
  MarkerType,
  type NodeChange,
  type EdgeChange,
  ReactFlow,
  type ReactFlowInstance,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useState } from 'react';
import type { Stage, StageStatus } from '../../api/types';
import { StageNode, type StageNodeType } from './StageNode';
import { connect, edgeLabel, removeStage } from './workflow-model';

const nodeTypes = { stage: StageNode };

/** The workflow drawn: stages at their positions, edges from `next`, live counts and warnings. */
export function WorkflowDiagram({
  stages,
  status,
  selectedId,
  invalidIndexes,
  onStages,
  onSelect,
}: {
  stages: readonly Stage[];
  status: ReadonlyMap<string, StageStatus>;
  selectedId: string | undefined;
  invalidIndexes: ReadonlySet<number>;
  onStages: (stages: Stage[]) => void;
  onSelect: (id: string | undefined) => void;
}) {
  const [flow, setFlow] = useState<ReactFlowInstance<StageNodeType, Edge>>();
  // A stage added or removed may lie outside the view: show the whole workflow again.
  useEffect(() => {
    void flow?.fitView({ padding: 0.2 });
  }, [flow, stages.length]);
  const nodes: StageNodeType[] = useMemo(
    () =>
      stages.map((stage, i) => ({
        id: stage.id,
        type: 'stage',
        position: stage.position ?? { x: 100 + i * 240, y: 100 },
        selected: stage.id === selectedId,
        data: {
          stage,
          count: status.get(stage.id)?.taskCount,
          warnings: status.get(stage.id)?.warnings ?? [],
          invalid: invalidIndexes.has(i),
        },
        ariaLabel: `${stage.type} stage ${stage.name || stage.id}`,
      })),
    [stages, status, selectedId, invalidIndexes],
  );
  const edges: Edge[] = useMemo(
    () =>
      stages.flatMap((stage) =>
        (stage.next ?? []).flatMap((target, index) => {
          if (!target) return [];
          const label = edgeLabel(stage, index);
          const reject = stage.type === 'Review' && index === 1;
          return [
            {
              id: `${stage.id}:${index}`,
              source: stage.id,
              sourceHandle: String(index),
              target,
              ...(label ? { label } : {}),
              className: reject ? 'edge-reject' : stage.type === 'Review' ? 'edge-accept' : undefined,
              markerEnd: { type: MarkerType.ArrowClosed },
            },
          ];
        }),
      ),
    [stages],
  );

  const onNodesChange = (changes: NodeChange<StageNodeType>[]) => {
    let next = [...stages];
    for (const change of changes) {
      if (change.type === 'position' && change.position) {
        const { x, y } = change.position;
        next = next.map((s) => (s.id === change.id ? { ...s, position: { x: Math.round(x), y: Math.round(y) } } : s));
      } else if (change.type === 'select') {
        if (change.selected) onSelect(change.id);
      } else if (change.type === 'remove') {
        if (next.find((s) => s.id === change.id)?.type === 'Start') continue;
        next = removeStage(next, change.id);
        onSelect(undefined);
      }
    }
    if (next.some((s, i) => s !== stages[i]) || next.length !== stages.length) onStages(next);
  };
  const onEdgesChange = (changes: EdgeChange[]) => {
    let next = [...stages];
    for (const change of changes) {
      if (change.type !== 'remove') continue;
      const [source, index] = change.id.split(':');
      if (source !== undefined && index !== undefined) next = connect(next, source, Number(index), '');
    }
    if (next.some((s, i) => s !== stages[i])) onStages(next);
  };
  const onConnect = (c: Connection) => {
    if (!c.target || c.target === c.source) return;
    onStages(connect(stages, c.source, Number(c.sourceHandle ?? 0), c.target));
  };
  return (
    <div className="diagram" aria-label="Workflow diagram" role="region">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onPaneClick={() => onSelect(undefined)}
        onInit={setFlow}
        fitView
        fitViewOptions={{ padding: 0.2 }}
        minZoom={0.3}
        deleteKeyCode={['Delete']}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </div>
  );
}
