import type { SurfaceEditorProps } from '../../core/surface';
import PointCloudEditor from './PointCloudEditor';
import PointSegmentationEditor from './PointSegmentationEditor';

/** A point cloud's editor: point labelling when the project is in segmentation mode, objects otherwise. */
export default function PointCloudSurfaceEditor(props: SurfaceEditorProps) {
  return props.pctConfig?.segmentationMode === true ? (
    <PointSegmentationEditor {...props} />
  ) : (
    <PointCloudEditor {...props} />
  );
}
