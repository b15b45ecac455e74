import type { BoxGeometry } from '../../core/answer';
import { boxTool } from '../shared/box-tool';

/** A box turned about its top-left corner. */
export interface RotatedBoxGeometry extends BoxGeometry {
  /** Degrees, clockwise, about the box's top-left corner (x, y), as the API stores it. */
  rotation: number;
}

declare module '../../core/answer' {
  interface GeometryKinds {
    'rotated-bounding-box': RotatedBoxGeometry;
  }
}

export default boxTool('rotated-bounding-box', 'Rotated box', true);
