import type { Vec } from '../../core/answer';
import { pathTool } from '../shared/path-tool';

declare module '../../core/answer' {
  interface GeometryKinds {
    /** Vertices in the medium's coordinates, left open. */
    polyline: Vec[];
  }
}

export default pathTool('polyline', 'Polyline', false);
