import { useId } from 'react';
import { setNested, setQuestion } from '../core/edit';
import type { OntologyClassification, OntologyOption } from '../core/ontology';
import type { AnswerValue, ClassificationAnswer } from '../core/answer';
import type { Problem } from '../core/validate';

export interface QuestionsProps {
  questions: OntologyClassification[] | undefined;
  answers: ClassificationAnswer[];
  onChange(answers: ClassificationAnswer[]): void;
  problems: Problem[];
  readOnly?: boolean;
}

/** The ontology's questions as a form, nested questions under the option that asks them. */
export function Questions({ questions, answers, onChange, problems, readOnly }: QuestionsProps) {
  return (
    <>
      {(questions ?? []).map((q) => {
        const a = answers.find((x) => x.schemaId === q.schemaId);
        const nested = a?.classifications ?? [];
        const chosen = asList(a?.answer);
        const children = [
          ...(q.classifications ?? []),
          ...(q.options ?? []).filter((o) => chosen.includes(o.schemaId)).flatMap((o) => o.children ?? []),
        ];
        return (
          <div className="question" key={q.schemaId}>
            <Question
              q={q}
              value={a?.answer ?? null}
              problem={problems.find((p) => p.schemaId === q.schemaId)?.message}
              readOnly={readOnly}
              onChange={(value) => onChange(setQuestion(answers, q, value))}
            />
            {children.length > 0 && (
              <div className="question-children">
                <Questions
                  questions={children}
                  answers={nested}
                  problems={problems}
                  readOnly={readOnly}
                  onChange={(list) => onChange(setNested(answers, q.schemaId, list))}
                />
              </div>
            )}
          </div>
        );
      })}
    </>
  );
}

function asList(v: AnswerValue | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v;
  return [];
}

interface TreeChoice {
  id: string;
  label: string;
}

/** Tree options flattened to "Parent / Child" choices; ids are the option's schemaId or value. */
function flattenTree(nodes: Record<string, unknown>[] | undefined, prefix = ''): TreeChoice[] {
  return (nodes ?? []).flatMap((n) => {
    const name = String(n.value ?? n.label ?? n.title ?? n.schemaId ?? '');
    const id = String(n.schemaId ?? n.id ?? n.value ?? name);
    const label = prefix ? `${prefix} / ${name}` : name;
    const kids = Array.isArray(n.children) ? (n.children as Record<string, unknown>[]) : [];
    return [{ id, label }, ...flattenTree(kids, label)];
  });
}

interface QuestionProps {
  q: OntologyClassification;
  value: AnswerValue;
  problem: string | undefined;
  readOnly: boolean | undefined;
  onChange(value: AnswerValue): void;
}

function Question({ q, value, problem, readOnly, onChange }: QuestionProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const invalid = problem ? { 'aria-invalid': true, 'aria-describedby': errorId } : {};
  const title = (
    <>
      {q.title}
      {q.required && (
        <span className="required" aria-hidden="true">
          {' '}
          *
        </span>
      )}
      {q.shortcutKey && <kbd className="shortcut">{q.shortcutKey}</kbd>}
    </>
  );
  const error = problem && (
    <p className="field-error" id={errorId} role="alert">
      {problem}
    </p>
  );
  const options: OntologyOption[] = q.options ?? [];
  const list = asList(value);

  switch (q.tool) {
    case 'radio':
    case 'checkbox':
      return (
        <fieldset className="question-set" {...invalid} disabled={readOnly} aria-required={q.required || undefined}>
          <legend>{title}</legend>
          {options.map((o) => (
            <label key={o.schemaId} className="choice">
              <input
                type={q.tool}
                name={`${id}-${q.schemaId}`}
                value={o.schemaId}
                checked={list.includes(o.schemaId)}
                onChange={(e) => {
                  if (q.tool === 'radio') return onChange(o.schemaId);
                  onChange(e.target.checked ? [...list, o.schemaId] : list.filter((x) => x !== o.schemaId));
                }}
              />
              {o.value}
            </label>
          ))}
          {error}
        </fieldset>
      );
    case 'single-dropdown':
    case 'multi-dropdown':
    case 'tree-dropdown':
    case 'single-tree-dropdown': {
      const multiple = q.tool === 'multi-dropdown' || q.tool === 'tree-dropdown';
      const choices = q.tool.includes('tree')
        ? flattenTree(q.treeOptions)
        : options.map((o) => ({ id: o.schemaId, label: o.value }));
      return (
        <div className="question-field">
          <label htmlFor={id}>{title}</label>
          <select
            id={id}
            multiple={multiple}
            disabled={readOnly}
            value={multiple ? list : (list[0] ?? '')}
            aria-required={q.required || undefined}
            {...invalid}
            onChange={(e) =>
              onChange(
                multiple
                  ? Array.from(e.target.selectedOptions, (o) => o.value)
                  : e.target.value === ''
                    ? null
                    : e.target.value,
              )
            }
          >
            {!multiple && <option value="">Choose…</option>}
            {choices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
          {error}
        </div>
      );
    }
    case 'boolean':
      return (
        <div className="question-field">
          <label className="choice">
            <input
              type="checkbox"
              checked={value === true}
              disabled={readOnly}
              {...invalid}
              onChange={(e) => onChange(e.target.checked)}
            />
            {title}
          </label>
          {error}
        </div>
      );
    case 'text':
    default: {
      const text = typeof value === 'string' ? value : '';
      const field = {
        id,
        value: text,
        disabled: readOnly,
        'aria-required': q.required || undefined,
        ...invalid,
        onChange: (e: { target: { value: string } }) => onChange(e.target.value === '' ? null : e.target.value),
      };
      return (
        <div className="question-field">
          <label htmlFor={id}>{title}</label>
          {q.richText ? <textarea rows={4} {...field} /> : <input type="text" {...field} />}
          {q.regex && <p className="hint">Format: {q.regex}</p>}
          {error}
        </div>
      );
    }
  }
}
