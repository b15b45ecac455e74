import type { ConsensusConfig } from '../../api/types';
import { CheckboxField, NumberField, SelectField } from '../../components/Field';

type ErrorOf = (field: string) => string | undefined;

/** How a Consensus stage agrees: threshold, adjudication, and how many copies. */
export function ConsensusFields({
  config,
  onChange,
  errorOf,
}: {
  config: ConsensusConfig;
  onChange: (config: ConsensusConfig) => void;
  errorOf: ErrorOf;
}) {
  const set = (patch: Partial<ConsensusConfig>) => onChange({ ...config, ...patch });
  return (
    <fieldset>
      <legend>Consensus</legend>
      <NumberField
        label="Agreement threshold (0 to 1)"
        value={config.threshold}
        onChange={(threshold) => set({ threshold })}
        min={0}
        max={1}
        step={0.05}
        error={errorOf('consensusConfig.threshold')}
      />
      <SelectField
        label="Adjudication"
        value={config.adjudicationMethod ?? 'majority'}
        options={['majority', 'union', 'intersection', 'first'] as const}
        onChange={(adjudicationMethod) => set({ adjudicationMethod })}
        error={errorOf('consensusConfig.adjudicationMethod')}
      />
      <CheckboxField
        label="Add copies while the threshold is not met"
        checked={config.dynamicConsensus ?? false}
        onChange={(dynamicConsensus) => set({ dynamicConsensus })}
      />
      <NumberField
        label="Fewest copies"
        value={config.minCopies}
        onChange={(minCopies) => set({ minCopies })}
        min={2}
        error={errorOf('consensusConfig.minCopies')}
      />
      <NumberField
        label="Most copies"
        value={config.maxCopies}
        onChange={(maxCopies) => set({ maxCopies })}
        max={10}
        error={errorOf('consensusConfig.maxCopies')}
      />
    </fieldset>
  );
}
