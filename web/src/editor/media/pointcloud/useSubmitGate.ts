import { useEffect, useRef, useState } from 'react';
import { readPointLabels } from '../../../../../src/shared/pointcloud/point-labels';
import type { PctVerdict, SurfaceEditorProps } from '../../core/surface';
import { coverageRefusal } from './segmentation';

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Where the external validator's check of a submit stands, for the editor to show. */
export type ExternalCheck =
  | { state: 'checking' }
  | { state: 'refused'; verdict: PctVerdict }
  /** The validator could not be asked or did not answer: the submit is held until it has checked. */
  | { state: 'unchecked'; error: unknown };

const problems = (n: number) => (n === 1 ? 'one problem' : `${n} problems`);

/**
 * The point-cloud editor's check of a submit, from the project's pctConfig: in segmentation mode
 * with `segmentationValidation`, every one of the `frames` frames needs `completeCoverage` percent
 * of its points labelled; with `externalValidation` enabled, the project's validator (asked
 * through the server, with the frame in view) must find the answer valid. A validator that cannot
 * be asked holds the submit too: the project wants every submitted answer checked, and the answer
 * stays as a draft until a later submit goes through. Answers where the external check stands.
 */
export function useSubmitGate(props: SurfaceEditorProps, frames: number, page: number): ExternalCheck | undefined {
  const { submitGate, pctConfig, pctValidator } = props;
  const [check, setCheck] = useState<ExternalCheck | undefined>(undefined);
  const inView = useRef(page);
  inView.current = page;
  useEffect(() => {
    if (!submitGate) return;
    const validation = isRec(pctConfig?.segmentationValidation) ? pctConfig.segmentationValidation : {};
    const required =
      pctConfig?.segmentationMode === true &&
      validation.enabled === true &&
      typeof validation.completeCoverage === 'number'
        ? validation.completeCoverage
        : undefined;
    const external = isRec(pctConfig?.externalValidation) && pctConfig.externalValidation.enabled === true;
    const validator = external ? pctValidator : undefined;
    submitGate.current = async (answer) => {
      const short =
        required === undefined ? undefined : coverageRefusal(readPointLabels(answer.pointLabels), frames, required);
      if (short || !validator) return short;
      setCheck({ state: 'checking' });
      try {
        const verdict = await validator.check(answer, inView.current);
        setCheck(verdict.valid ? undefined : { state: 'refused', verdict });
        if (verdict.valid) return undefined;
        return `Not submitted: the external validator found ${problems(Math.max(1, verdict.errors.length))}, listed above the views.`;
      } catch (error) {
        setCheck({ state: 'unchecked', error });
        return 'Not submitted: the external validator could not check the answer. Submit again to retry.';
      }
    };
    return () => {
      submitGate.current = undefined;
    };
  }, [submitGate, pctConfig, pctValidator, frames]);
  return check;
}
