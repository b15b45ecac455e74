import type { BoxGeometry } from '../../core/answer';
import { boxTool } from '../shared/box-tool';

declare module '../../core/answer' {
  interface GeometryKinds {
    /** An axis-aligned box: its top-left corner and size. */
    'bounding-box': BoxGeometry;
  }
}

export default boxTool('bounding-box', 'Bounding box', false);
