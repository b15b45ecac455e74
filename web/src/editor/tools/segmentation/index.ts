import { segmentationTool } from './segmentation-tool';
import type { Segmentation } from './zones';

declare module '../../core/answer' {
  interface GeometryKinds {
    /** Zones (outline and holes) in the medium's coordinates, never overlapping. */
    segmentation: Segmentation;
  }
}

export default segmentationTool;
