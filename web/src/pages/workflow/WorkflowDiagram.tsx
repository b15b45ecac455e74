import {
  Background,
  type Connection,
  ControlButton,
  Controls,
  MarkerType,
  type NodeChange,
  type EdgeChange,
  type OnConnectEnd,
  ReactFlow,
  useReactFlow,
  useStore,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useState } from 'react';
import type { Stage, StageStatus } from '../../api/types';
import { FlowEdge, type FlowEdgeType } from './FlowEdge';
import { StageNode, type StageNodeType } from './StageNode';
import { flowRanks, isBackEdge, tidyPositions } from './workflow-layout';
import { connect, edgeLabel, removeStage } from './workflow-model';

const nodeTypes = { stage: StageNode };
const edgeTypes = { flow: FlowEdge };

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
function FitToStages({ layout }: { layout: number }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  // Which stages are drawn, and whether each has its size yet: a new stage is fitted once measured.
  const ids = useStore((s) => [...s.nodeLookup.keys()].join('\n'));
  const measured = useStore((s) => [...s.nodeLookup.values()].every((n) => !!n.measured.width));
  useEffect(() => {
    // A frame later: positions laid out anew (`layout`) reach the flow's store after this render.
    const frame = requestAnimationFrame(() => {
      const nodes = flow.getNodes();
      if (!measured || nodes.length === 0 || width === 0 || height === 0) return;
      const b = flow.getNodesBounds(nodes);
      const room = { w: width - 2 * MARGIN, h: height - 2 * MARGIN };
      const fit = Math.min(room.w / Math.max(1, b.width), room.h / Math.max(1, b.height));
      const zoom = Math.min(MAX_FIT_ZOOM, Math.max(MIN_FIT_ZOOM, fit));
      const axis = (start: number, size: number, space: number) =>
        size * zoom <= space ? (space + 2 * MARGIN - size * zoom) / 2 - start * zoom : MARGIN - start * zoom;
      void flow.setViewport({ x: axis(b.x, b.width, room.w), y: axis(b.y, b.height, room.h), zoom });
    });
    return () => cancelAnimationFrame(frame);
  }, [flow, ids, measured, width, height, layout]);
  return null;
}

/** The controls' button that lays the stages out tidily (workflow-layout.ts), box sizes as drawn. */
function TidyButton({ stages, onTidy }: { stages: readonly Stage[]; onTidy: (stages: Stage[]) => void }) {
  const flow = useReactFlow();
  const tidy = () => {
    const sizes = new Map(flow.getNodes().map((n) => [n.id, n.measured]));
    onTidy(
      tidyPositions(stages, (id) => {
        const m = sizes.get(id);
        return m?.width && m.height ? { width: m.width, height: m.height } : undefined;
      }),
    );
  };
  return (
    <ControlButton onClick={tidy} title="Tidy up the layout" aria-label="Tidy up the layout">
      <svg viewBox="0 0 16 16" aria-hidden="true">
        <path d="M1 3h5v3H1zM10 1h5v3h-5zM10 7h5v3h-5zM10 12h5v3h-5zM6 4.5h2v7h2M8 8.5h2M8 2.5h2v2" />
      </svg>
    </ControlButton>
  );
}

/** The stage under a screen point (where a connection was dropped), by its box on the page. */
function stageAt(event: MouseEvent | TouchEvent): string | undefined {
  const point = 'changedTouches' in event ? event.changedTouches[0] : event;
  if (!point) return undefined;
  const node = document.elementFromPoint(point.clientX, point.clientY)?.closest<HTMLElement>('.react-flow__node');
  return node?.dataset.id;
}

/**
 * The workflow drawn: stages at their positions, edges from `next`, live counts and warnings.
 * Read-only (`editable` false) for the roles that may watch the workflow but not change it.
 */
export function WorkflowDiagram({
  stages,
  status,
  selectedId,
  invalidIndexes,
  onStages,
  onSelect,
  editable = true,
}: {
  stages: readonly Stage[];
  status: ReadonlyMap<string, StageStatus>;
  selectedId: string | undefined;
  invalidIndexes: ReadonlySet<number>;
  onStages: (stages: Stage[]) => void;
  onSelect: (id: string | undefined) => void;
  editable?: boolean;
}) {
  // Counts tidy-ups: the view fits the stages again after each.
  const [layout, setLayout] = useState(0);
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
  const edges: FlowEdgeType[] = useMemo(() => {
    const rank = flowRanks(stages);
    return stages.flatMap((stage) => {
      let lane = 0;
      return (stage.next ?? []).flatMap((target, index) => {
        if (!target) return [];
        const label = edgeLabel(stage, index);
        const reject = stage.type === 'Review' && index === 1;
        const back = isBackEdge(rank, stage.id, target);
        return [
          {
            id: `${stage.id}:${index}`,
            type: 'flow' as const,
            source: stage.id,
            sourceHandle: String(index),
            target,
            data: { back, lane: back ? lane++ : 0 },
            ...(label ? { label } : {}),
            className: reject ? 'edge-reject' : stage.type === 'Review' ? 'edge-accept' : undefined,
            markerEnd: { type: MarkerType.ArrowClosed },
          },
        ];
      });
    });
  }, [stages]);

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
  // An output dropped anywhere on a stage's box connects to it, not only on its small input dot.
  const onConnectEnd: OnConnectEnd = (event, state) => {
    if (state.isValid || !state.fromNode || !state.fromHandle) return;
    const target = stageAt(event);
    const source = state.fromNode.id;
    if (!target || target === source || stages.find((s) => s.id === target)?.type === 'Start') return;
    onStages(connect(stages, source, Number(state.fromHandle.id ?? 0), target));
  };
  return (
    <div className="diagram" aria-label="Workflow diagram" role="region">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={editable ? onEdgesChange : undefined}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        onPaneClick={() => onSelect(undefined)}
        minZoom={MIN_FIT_ZOOM}
        colorMode="system"
        nodesDraggable={editable}
        nodesConnectable={editable}
        edgesFocusable={editable}
        deleteKeyCode={editable ? ['Delete'] : null}
      >
        <Background />
        <Controls showInteractive={false}>
          {editable && (
            <TidyButton
              stages={stages}
              onTidy={(tidy) => {
                onStages(tidy);
                setLayout((n) => n + 1);
              }}
            />
          )}
        </Controls>
        {/* A stage added or removed may lie outside the view: fit again. */}
        <FitToStages layout={layout} />
      </ReactFlow>
    </div>
  );
}
