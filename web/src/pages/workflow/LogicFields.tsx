import { LOGIC_TYPES, type LogicCondition, type LogicConditionValue, type Stage } from '../../api/types';
import { NumberField, SelectField } from '../../components/Field';
import { ListField } from '../../components/ListField';

type ErrorOf = (field: string) => string | undefined;

/** Each kind's value fields; the names of the errors follow the contract's paths. */
function ConditionValue({
  condition,
  set,
  errorOf,
  at,
}: {
  condition: LogicCondition;
  set: (value: LogicConditionValue) => void;
  errorOf: ErrorOf;
  at: string;
}) {
  const v = condition.value ?? {};
  const patch = (p: Partial<LogicConditionValue>) => set({ ...v, ...p });
  switch (condition.type) {
    case 'AnnotationType':
      return (
        <ListField
          label="Tool filters"
          hint="exists___<tool id> or not-exist___<tool id>; any one matching routes the task."
          value={(v.tools ?? []).flatMap((t) => t.filter)}
          onChange={(filter) => patch({ tools: [{ filter }] })}
          error={errorOf(`${at}.value.tools`) ?? errorOf(`${at}.value.tools[0].filter[0]`)}
        />
      );
    case 'Annotator':
      return (
        <ListField
          label="Annotator e-mails"
          value={v.emails ?? []}
          onChange={(emails) => patch({ emails })}
          error={errorOf(`${at}.value.emails`)}
        />
      );
    case 'RandomSample':
      return (
        <NumberField
          label="Sample rate (0 to 1)"
          value={v.sampleRate}
          onChange={(sampleRate) => patch({ sampleRate })}
          min={0}
          max={1}
          step={0.05}
          error={errorOf(`${at}.value.sampleRate`)}
        />
      );
    case 'Duration':
      return (
        <>
          <SelectField
            label="Comparison"
            value={v.operator ?? 'gt'}
            options={[
              { value: 'lt', label: 'shorter than' },
              { value: 'gt', label: 'longer than' },
              { value: 'eq', label: 'exactly' },
            ]}
            onChange={(operator) => patch({ operator })}
            error={errorOf(`${at}.value.operator`)}
          />
          <NumberField
            label="Duration (milliseconds)"
            value={v.duration}
            onChange={(duration) => patch({ duration })}
            min={0}
            error={errorOf(`${at}.value.duration`)}
          />
        </>
      );
    case 'Batch':
      return (
        <ListField
          label="Batches"
          value={v.batches ?? []}
          onChange={(batches) => patch({ batches })}
          error={errorOf(`${at}.value.batches`)}
        />
      );
    case 'IssueErrorCode':
      return (
        <ListField
          label="Issue error codes"
          value={v.errorCodes ?? []}
          onChange={(errorCodes) => patch({ errorCodes })}
          error={errorOf(`${at}.value.errorCodes`)}
        />
      );
  }
}

/** The conditions of a Logic stage, in order (the first match wins), each routing to an output. */
export function LogicFields({
  stage,
  onChange,
  errorOf,
}: {
  stage: Stage;
  onChange: (stage: Stage) => void;
  errorOf: ErrorOf;
}) {
  const logic = stage.logic ?? {};
  const conditions = logic.conditions ?? [];
  const outputs = stage.next ?? [];
  const setConditions = (next: LogicCondition[]) => onChange({ ...stage, logic: { ...logic, conditions: next } });
  const setAt = (i: number, c: LogicCondition) => setConditions(conditions.map((old, k) => (k === i ? c : old)));
  const outputOptions = outputs.map((target, i) => ({
    value: String(i),
    label: `Output ${i + 1}${target ? ` (${target})` : ''}`,
  }));
  return (
    <fieldset>
      <legend>Conditions (first match wins; otherwise the last output)</legend>
      {conditions.length === 0 && <p className="muted">No conditions: every task takes the last output.</p>}
      <ol className="conditions">
        {conditions.map((c, i) => {
          const at = `logic.conditions[${i}]`;
          return (
            <li key={i} className="condition">
              <SelectField
                label={`Condition ${i + 1} kind`}
                value={c.type}
                options={LOGIC_TYPES}
                onChange={(type) => setAt(i, { type, index: c.index, value: {} })}
                error={errorOf(`${at}.type`)}
              />
              <ConditionValue condition={c} set={(value) => setAt(i, { ...c, value })} errorOf={errorOf} at={at} />
              <SelectField
                label={`Condition ${i + 1} routes to`}
                value={String(c.index)}
                options={outputOptions.length > 0 ? outputOptions : [{ value: '0', label: 'Output 1' }]}
                onChange={(index) => setAt(i, { ...c, index: Number(index) })}
                error={errorOf(`${at}.index`)}
              />
              <button type="button" onClick={() => setConditions(conditions.filter((_, k) => k !== i))}>
                Remove condition {i + 1}
              </button>
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        onClick={() => setConditions([...conditions, { type: 'RandomSample', index: 0, value: { sampleRate: 0.5 } }])}
      >
        Add condition
      </button>
    </fieldset>
  );
}
