import { useEffect } from 'react';
import { readPointLabels } from '../../../../../src/shared/pointcloud/point-labels';
import type { SurfaceEditorProps } from '../../core/surface';
import { coverageRefusal } from './segmentation';

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The point-cloud editor's check of a submit, from the project's pctConfig: in segmentation mode
 * with `segmentationValidation`, every one of the `frames` frames needs `completeCoverage` percent
 * of its points labelled.
 */
export function useSubmitGate(props: SurfaceEditorProps, frames: number): void {
  const { submitGate, pctConfig } = props;
  useEffect(() => {
    if (!submitGate) return;
    const validation = isRec(pctConfig?.segmentationValidation) ? pctConfig.segmentationValidation : {};
    const required =
      pctConfig?.segmentationMode === true &&
      validation.enabled === true &&
      typeof validation.completeCoverage === 'number'
        ? validation.completeCoverage
        : undefined;
    submitGate.current = async (answer) =>
      required === undefined ? undefined : coverageRefusal(readPointLabels(answer.pointLabels), frames, required);
    return () => {
      submitGate.current = undefined;
    };
  }, [submitGate, pctConfig, frames]);
}
