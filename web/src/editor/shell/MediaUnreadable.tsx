import type { ReactNode } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import type { SurfaceEditorProps } from '../core/surface';
import { ClassificationsOnly } from './ClassificationsOnly';

/** Said after why a medium cannot be shown. */
export const ANSWER_KEPT = 'The answer saved so far is kept.';

/** Why a medium (or one part of it) cannot be shown, and that the saved answer stays: one alert. */
export function UnreadableNotice({ problem }: { problem: string }) {
  return <ErrorNotice place="form" className="media-problem" error={`${problem} ${ANSWER_KEPT}`} />;
}

export interface MediaUnreadableProps {
  /** What the work page gave the medium's editor: the ontology, the answer so far, the stage's buttons. */
  given: Pick<SurfaceEditorProps, 'ontology' | 'initial' | 'onChange' | 'problems' | 'readOnly' | 'actions' | 'aside'>;
  /** What is wrong with the file, in words for the labeler (a MediaError's message). */
  problem: string;
  /** Questions asked of one frame or page need the picture: only the whole asset's are offered. */
  wholeAssetQuestionsOnly?: boolean;
  /** What the asset can still show (a video in the browser's own player). */
  media?: ReactNode;
}

/**
 * A medium's editor when its file cannot be read: the reason in words, the task's questions
 * without the drawing tools, and the stage's buttons, so the task can still be answered, skipped
 * or sent on. Objects already in the answer (drawn before, by a plugin or a pre-label) are kept
 * unchanged.
 */
export function MediaUnreadable({ given, problem, wholeAssetQuestionsOnly, media }: MediaUnreadableProps) {
  const { ontology, initial, onChange, problems, readOnly, actions, aside } = given;
  const classifications = wholeAssetQuestionsOnly
    ? (ontology.classifications ?? []).filter((c) => !c.frameSpecific)
    : ontology.classifications;
  return (
    <ClassificationsOnly
      {...{ initial, onChange, problems, readOnly, actions, aside }}
      ontology={{ ...ontology, tools: [], classifications }}
      notice={<UnreadableNotice problem={problem} />}
      media={media}
    />
  );
}
