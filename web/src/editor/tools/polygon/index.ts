import type { Vec } from '../../core/answer';
import { pathTool } from '../shared/path-tool';

declare module '../../core/answer' {
  interface GeometryKinds {
    /** Vertices in the medium's coordinates, closed back to the first. */
    polygon: Vec[];
  }
}

export default pathTool('polygon', 'Polygon', true);
