import { ErrorNotice } from '../../../components/ErrorNotice';
import { errorText, statusOf } from '../../../components/error-text';
import type { PctVerdict } from '../../core/surface';
import type { ExternalCheck } from './useSubmitGate';

type Finding = PctVerdict['errors'][number];

export interface ExternalCheckNoticeProps {
  check: ExternalCheck | undefined;
  /** Shows a frame (from 0). */
  go(frame: number): void;
  /** Selects an object of the answer; left out by an editor without objects (point labelling). */
  onSelect?: ((objectId: string) => void) | undefined;
  /** An object's name as the objects list says it on a frame ("Car 2"), undefined when the answer has no such object. */
  nameOf?: ((objectId: string, frame: number | undefined) => string | undefined) | undefined;
}

/**
 * What the project's external validator made of the answer being submitted: while it checks, a
 * status; when it refuses, its findings in words, each naming its frame (counted from 1, as the
 * frame bar does) and object, a click away from them; when it could not be asked, why, and that
 * submitting again retries.
 */
export function ExternalCheckNotice({ check, go, onSelect, nameOf }: ExternalCheckNoticeProps) {
  if (!check) return null;
  if (check.state === 'checking') {
    return (
      <p className="pointcloud-checking" role="status">
        Checking the answer with the project&apos;s external validator…
      </p>
    );
  }
  if (check.state === 'unchecked') {
    const { error } = check;
    // A 502 says what the validator did (its status, its silence) in words meant for the labeler.
    const why = statusOf(error) === 502 && error instanceof Error ? error.message : errorText(error);
    return (
      <ErrorNotice
        place="form"
        className="pointcloud-validation"
        lead="The external validator could not check the answer:"
        error={`${why.replace(/\.$/, '')}. The answer is kept and is not submitted until the validator has checked it: submit again to retry.`}
      />
    );
  }
  const { verdict } = check;
  const said = verdict.message ? ` It says: ${verdict.message.replace(/\.$/, '')}.` : '';
  return (
    <ErrorNotice
      place="form"
      className="pointcloud-validation"
      error={`The external validator refused the answer: fix what it found and submit again.${said}`}
    >
      {verdict.errors.length > 0 && (
        <ul aria-label="What the external validator found">
          {verdict.errors.map((finding, i) => (
            <li key={i}>
              <FindingLine finding={finding} go={go} onSelect={onSelect} nameOf={nameOf} />
            </li>
          ))}
        </ul>
      )}
    </ErrorNotice>
  );
}

/** One finding: "Frame 3, Car 1: too tall", a button to its frame and object when it names them. */
function FindingLine({
  finding,
  go,
  onSelect,
  nameOf,
}: { finding: Finding } & Omit<ExternalCheckNoticeProps, 'check'>) {
  const { frame, objectId, message } = finding;
  const name = objectId === undefined ? undefined : nameOf?.(objectId, frame);
  const where = [
    frame === undefined ? undefined : `Frame ${frame + 1}`,
    objectId === undefined ? undefined : (name ?? `object ${objectId}`),
  ].filter((w): w is string => w !== undefined);
  const text = where.length ? `${where.join(', ')}: ${message}` : message;
  const selectable = name !== undefined && objectId !== undefined && onSelect !== undefined;
  if (frame === undefined && !selectable) return <>{text}</>;
  return (
    <button
      type="button"
      className="link"
      title={selectable ? 'Show this object' : 'Show this frame'}
      onClick={() => {
        if (frame !== undefined) go(frame);
        if (selectable) onSelect(objectId);
      }}
    >
      {text}
    </button>
  );
}
