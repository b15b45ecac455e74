import {
  Background,
  type Connection,
  Controls,
  type Edge,
  MarkerType,
  type NodeChange,
  type EdgeChange,
  ReactFlow,
  useReactFlow,
  useStore,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo } from 'react';
import type { Stage, StageStatus } from '../../api/types';
import { StageNode, type StageNodeType } from './StageNode';
import { connect, edgeLabel, removeStage } from './workflow-model';

const nodeTypes = { stage: StageNode };

/**
 * Zooms the fitted view may use: the whole workflow in view, down to a zoom where a long row of
 * stages (a dozen, beside the side panel at 1280 px) still fits, stage names then small but the
 * shape of the flow all there (the controls and the wheel zoom in); never blown up.
 */
const MIN_FIT_ZOOM = 0.2;
const MAX_FIT_ZOOM = 1.25;
const MARGIN = 24;

/**
 * Fits the view to the stages once they are measured, and again when a stage is added or
 * removed: the whole workflow, centred. Only a workflow too large even at the smallest zoom is
 * shown from its left end (where Start usually is), the rest reached by panning.
 */
function FitToStages() {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  // Which stages are drawn, and whether each has its size yet: a new stage is fitted once measured.
  const ids = useStore((s) => [...s.nodeLookup.keys()].join('\n'));
  const measured = useStore((s) => [...s.nodeLookup.values()].every((n) => !!n.measured.width));
  useEffect(() => {
    const nodes = flow.getNodes();
    if (!measured || nodes.length === 0 || width === 0 || height === 0) return;
    const b = flow.getNodesBounds(nodes);
    const room = { w: width - 2 * MARGIN, h: height - 2 * MARGIN };
    const fit = Math.min(room.w / Math.max(1, b.width), room.h / Math.max(1, b.height));
    const zoom = Math.min(MAX_FIT_ZOOM, Math.max(MIN_FIT_ZOOM, fit));
    const axis = (start: number, size: number, space: number) =>
      size * zoom <= space ? (space + 2 * MARGIN - size * zoom) / 2 - start * zoom : MARGIN - start * zoom;
    void flow.setViewport({ x: axis(b.x, b.width, room.w), y: axis(b.y, b.height, room.h), zoom });
  }, [flow, ids, measured, width, height]);
  return null;
}

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
        minZoom={MIN_FIT_ZOOM}
        deleteKeyCode={['Delete']}
      >
        <Background />
        <Controls />
        {/* A stage added or removed may lie outside the view: fit again. */}
        <FitToStages />
      </ReactFlow>
    </div>
  );
}
