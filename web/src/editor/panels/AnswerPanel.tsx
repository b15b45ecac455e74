import type { ReactNode } from 'react';
import { setObjectClassifications } from '../core/edit';
import type { Ontology } from '../core/ontology';
import type { EditorAnswer } from '../core/answer';
import type { Problem } from '../core/validate';
import { ObjectsPanel } from './ObjectsPanel';
import { Questions } from './Questions';

export interface AnswerPanelProps {
  ontology: Ontology;
  answer: EditorAnswer;
  colors: Map<string, string>;
  selectedId: string | undefined;
  readOnly: boolean | undefined;
  problems: Problem[];
  onSelect(objectId: string | undefined): void;
  onChange(answer: EditorAnswer): void;
  /** Above the objects: the task's open issues, a consensus score... */
  aside?: ReactNode;
  /** The stage's buttons, at the bottom. */
  actions?: ReactNode;
  /** False for assets without drawing (questions only). */
  showObjects?: boolean;
  /** What the objects' list says when it shows none, when "nothing drawn yet" would be wrong. */
  emptyNote?: string | undefined;
  /** Under the questions' heading: which part of the medium the per-part questions answer. */
  questionsNote?: string | undefined;
}

/** The side of both editors: objects with their questions, the task's questions, the actions. */
export function AnswerPanel(p: AnswerPanelProps) {
  const { answer } = p;
  return (
    <aside className="editor-side" aria-label="Answer">
      {p.aside}
      {p.showObjects !== false && (
        <ObjectsPanel
          ontology={p.ontology}
          answer={answer}
          colors={p.colors}
          selectedId={p.selectedId}
          readOnly={p.readOnly}
          problems={p.problems}
          onSelect={p.onSelect}
          onChange={p.onChange}
          emptyNote={p.emptyNote}
          onObjectAnswers={(id, list) => p.onChange(setObjectClassifications(answer, id, list))}
        />
      )}
      <section className="editor-questions" aria-label="Questions">
        <h2>Questions</h2>
        {p.questionsNote && <p className="muted">{p.questionsNote}</p>}
        {(p.ontology.classifications ?? []).length === 0 && <p className="muted">This project asks no questions.</p>}
        <Questions
          questions={p.ontology.classifications}
          answers={answer.classifications}
          problems={p.problems.filter((x) => !x.objectId)}
          readOnly={p.readOnly}
          onChange={(list) => p.onChange({ ...answer, classifications: list })}
        />
      </section>
      <div className="editor-actions">{p.actions}</div>
    </aside>
  );
}
