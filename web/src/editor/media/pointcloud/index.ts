import { lazy } from 'react';
import type { Vec } from '../../core/answer';
import type { Surface } from '../../core/surface';
import { fitTop, panTop, topToGround, topToScreen, zoomTopAt, type TopView } from './top-view';

/** three.js and the editor load when a point cloud opens: the other editors do not carry them. */
const PointCloudEditor = lazy(() => import('./PointCloudSurfaceEditor'));

/**
 * Point clouds (`pct` projects): a sequence of LiDAR frames (metres; x forward, y left, z up) with
 * cameras beside. Objects carry their frame in `where.page`. The view this surface converts under
 * is the top view: the ground seen from above.
 */
const pointcloud: Surface<TopView, Vec, Vec> = {
  kind: 'pointcloud',
  space: 'lidar',
  toScreen: topToScreen,
  toMedium: topToGround,
  examples() {
    const fitted = fitTop(-10, 60, -30, 30, 900, 700);
    const points: Vec[] = [
      [0, 0],
      [40.25, -12.5],
      [12, 7.75],
    ];
    return [fitted, zoomTopAt(fitted, [300, 200], 3), panTop(fitted, 120, -45)].map((view) => ({ view, points }));
  },
  Editor: PointCloudEditor,
};

export default pointcloud;
