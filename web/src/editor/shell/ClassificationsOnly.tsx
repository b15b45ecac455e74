import { type ReactNode, useState } from 'react';
import type { Ontology } from '../core/ontology';
import type { EditorAnswer } from '../core/answer';
import type { Problem } from '../core/validate';
import { AnswerPanel } from '../panels/AnswerPanel';

export interface ClassificationsOnlyProps {
  ontology: Ontology;
  initial: EditorAnswer;
  onChange(answer: EditorAnswer): void;
  problems: Problem[];
  readOnly?: boolean;
  /** What the asset is ("a video", "a point cloud"...), said to the person. */
  message?: string;
  /** Said instead of "the editor does not draw on ...": why this asset cannot be shown (MediaUnreadable). */
  notice?: ReactNode;
  actions?: ReactNode;
  aside?: ReactNode;
  /** Shown under the words: what the asset can still show (a video in the browser's own player). */
  media?: ReactNode;
}

/**
 * The task's questions only, with a plain word about why: for assets the editor does not draw
 * on, and (through MediaUnreadable) for files a medium's editor cannot read.
 */
export function ClassificationsOnly(props: ClassificationsOnlyProps) {
  const [answer, setAnswer] = useState(props.initial);
  const change = (next: EditorAnswer) => {
    setAnswer(next);
    props.onChange(next);
  };
  return (
    <div className="image-editor classifications-only">
      <div className="editor-body">
        <div className="text-canvas unsupported-asset">
          {props.notice ?? <h2>The editor does not draw on {props.message ?? 'this kind of file'} yet</h2>}
          <p>
            Answer the task&apos;s questions on the right and submit. Objects drawn elsewhere (by a plugin, a pre-label
            or another tool) stay in the answer unchanged.
          </p>
          {props.media}
        </div>
        <AnswerPanel
          ontology={props.ontology}
          answer={answer}
          colors={new Map()}
          selectedId={undefined}
          readOnly={props.readOnly}
          problems={props.problems}
          onSelect={() => undefined}
          onChange={change}
          aside={props.aside}
          actions={props.actions}
          showObjects={false}
        />
      </div>
    </div>
  );
}
