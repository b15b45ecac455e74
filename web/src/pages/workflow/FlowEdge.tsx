import { BaseEdge, type Edge, type EdgeProps, getBezierPath, type InternalNode, useInternalNode } from '@xyflow/react';
import { memo } from 'react';

export interface FlowEdgeData extends Record<string, unknown> {
  /** The route goes back against the flow (Review's Rejected to its Label stage). */
  back: boolean;
  /** Which back route of the source this is, so two of them do not run on one line. */
  lane: number;
}

export type FlowEdgeType = Edge<FlowEdgeData, 'flow'>;

/** How far below the lower of the two boxes a route back runs, and how far apart two such routes are. */
const BELOW = 26;
const LANE = 14;
/** How far a route leaves a handle straight before it turns. */
const STUB = 18;
const RADIUS = 10;

function bottomOf(node: InternalNode | undefined): number {
  if (!node) return 0;
  return node.internals.positionAbsolute.y + (node.measured.height ?? 0);
}

/** A polyline with its corners rounded (r at most half the shorter neighbouring segment). */
export function roundedPath(points: readonly [number, number][]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M ${first[0]} ${first[1]}`;
  rest.forEach((p, i) => {
    const prev = points[i] as [number, number];
    const next = points[i + 2];
    if (!next) {
      d += ` L ${p[0]} ${p[1]}`;
      return;
    }
    const r = Math.min(
      RADIUS,
      Math.hypot(p[0] - prev[0], p[1] - prev[1]) / 2,
      Math.hypot(next[0] - p[0], next[1] - p[1]) / 2,
    );
    const toward = (a: [number, number], b: [number, number], by: number): [number, number] => {
      const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
      return [a[0] + ((b[0] - a[0]) * by) / len, a[1] + ((b[1] - a[1]) * by) / len];
    };
    const [ax, ay] = toward(p, prev, r);
    const [bx, by] = toward(p, next, r);
    d += ` L ${ax} ${ay} Q ${p[0]} ${p[1]} ${bx} ${by}`;
  });
  return d;
}

/**
 * A route between two stages. Forward routes are the usual curve from an output on the right
 * to the next stage's left. A route back against the flow would curl round both boxes as a
 * curve; it runs instead out to the right, down under both boxes, back along beneath them and up
 * into the target's left side, so it never crosses a box.
 */
export const FlowEdge = memo(function FlowEdge(props: EdgeProps<FlowEdgeType>) {
  const { source, target, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data } = props;
  const sourceNode = useInternalNode(source);
  const targetNode = useInternalNode(target);
  const { markerEnd, label, style, interactionWidth } = props;
  let path: string;
  let labelX: number;
  let labelY: number;
  if (data?.back) {
    const below = Math.max(bottomOf(sourceNode), bottomOf(targetNode), sourceY, targetY) + BELOW + data.lane * LANE;
    const out = sourceX + STUB + data.lane * 6;
    const into = targetX - STUB - data.lane * 6;
    path = roundedPath([
      [sourceX, sourceY],
      [out, sourceY],
      [out, below],
      [into, below],
      [into, targetY],
      [targetX, targetY],
    ]);
    labelX = (out + into) / 2;
    labelY = below;
  } else {
    [path, labelX, labelY] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  }
  return (
    <BaseEdge
      path={path}
      labelX={labelX}
      labelY={labelY}
      label={label}
      markerEnd={markerEnd}
      {...(style ? { style } : {})}
      {...(interactionWidth !== undefined ? { interactionWidth } : {})}
    />
  );
});
