import type { Stage } from '../../api/types';
import { SelectField } from '../../components/Field';
import { connect, outputKind, REVIEW_OUTPUTS } from './workflow-model';

type ErrorOf = (field: string) => string | undefined;

/**
 * Where a stage sends its tasks, as selects: the keyboard way to draw the edges the diagram
 * draws by dragging.
 */
export function StageOutputs({
  stage,
  stages,
  onStages,
  errorOf,
}: {
  stage: Stage;
  stages: readonly Stage[];
  onStages: (stages: Stage[]) => void;
  errorOf: ErrorOf;
}) {
  const kind = outputKind(stage.type);
  if (kind === 'none') return null;
  const targets = [
    { value: '', label: '(not connected)' },
    ...stages
      .filter((s) => s.id !== stage.id && s.type !== 'Start')
      .map((s) => ({ value: s.id, label: s.name || s.id })),
  ];
  const next = stage.next ?? [];
  const select = (label: string, index: number) => (
    <SelectField
      key={index}
      label={label}
      value={next[index] ?? ''}
      options={targets}
      onChange={(target) => onStages(connect(stages, stage.id, index, target))}
      error={errorOf(`next[${index}]`) ?? (index === 0 ? errorOf('next') : undefined)}
    />
  );
  return (
    <fieldset>
      <legend>Outputs</legend>
      {kind === 'single' && select('Next stage', 0)}
      {kind === 'review' && REVIEW_OUTPUTS.map((label, i) => select(`${label} goes to`, i))}
      {kind === 'logic' && (
        <>
          {next.map((_, i) => select(`Output ${i + 1} goes to`, i))}
          {select(`Output ${next.length + 1} goes to (new)`, next.length)}
        </>
      )}
    </fieldset>
  );
}
