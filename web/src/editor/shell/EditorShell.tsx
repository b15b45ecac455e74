import { memo, type ReactNode } from 'react';
import { AnswerPanel, type AnswerPanelProps } from '../panels/AnswerPanel';
import { ShortcutHelp, type ShortcutHelpProps } from './ShortcutHelp';

/** The side panel lists every object: a zoom (which re-renders the editor) must not redo it. */
const Panel = memo(AnswerPanel);

export interface EditorShellProps {
  /** The medium's class names (its styles hang off them). */
  className: string;
  /** What the toolbar is called to a screen reader ("Drawing tools", "Entities"). */
  toolbarLabel: string;
  /** The tools of the surface's space, and the surface's own controls (undo, zoom...). */
  toolbar: ReactNode;
  /** The keys the help dialog (`?`) lists: the surface's tools and the medium's own. */
  help: ShortcutHelpProps;
  /** What the work page gave the editor for its side: the ontology, problems, the stage's buttons. */
  given: Pick<AnswerPanelProps, 'ontology' | 'problems'> & {
    readOnly?: boolean;
    aside?: ReactNode;
    actions?: ReactNode;
  };
  /** The answer being edited, its colours and the selected object. */
  editing: Pick<
    AnswerPanelProps,
    'answer' | 'colors' | 'selectedId' | 'onSelect' | 'onChange' | 'emptyNote' | 'questionsNote'
  >;
  /** The surface: the medium with its objects. */
  children: ReactNode;
}

/** What every medium's editor looks like: the toolbar above, the surface and the answer's panel below. */
export function EditorShell(props: EditorShellProps) {
  return (
    <div className={props.className}>
      <div className="editor-toolbar" role="toolbar" aria-label={props.toolbarLabel}>
        {props.toolbar}
        <ShortcutHelp {...props.help} />
      </div>
      <div className="editor-body">
        {props.children}
        <Panel
          ontology={props.given.ontology}
          problems={props.given.problems}
          readOnly={props.given.readOnly}
          aside={props.given.aside}
          actions={props.given.actions}
          {...props.editing}
        />
      </div>
    </div>
  );
}
