import { useId, useState } from 'react';
import type { OverviewFilter } from '../../api/metrics';
import type { Project } from '../../api/types';
import { SelectField } from '../../components/Field';

const DAY = 24 * 3600 * 1000;
const RANGES = [
  { value: 'all', label: 'All time' },
  { value: '1', label: 'Last 24 hours' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: 'custom', label: 'Between dates' },
] as const;
type Range = (typeof RANGES)[number]['value'];

/** A labelled date input (the shared TextField has no date type). */
function DateField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** `[from, to)` for a range; "between dates" counts the end date's whole day. */
function intervalOf(range: Range, from: string, to: string): [string, string] | undefined {
  const now = Date.now();
  if (range === 'all') return undefined;
  if (range !== 'custom') return [new Date(now - Number(range) * DAY).toISOString(), new Date(now + DAY).toISOString()];
  if (!from && !to) return undefined;
  const end = to ? new Date(Date.parse(`${to}T00:00:00Z`) + DAY) : new Date(now + DAY);
  return [from ? `${from}T00:00:00.000Z` : '1970-01-01T00:00:00.000Z', end.toISOString()];
}

/** Time range and batch of the overview; the interval is fixed when chosen, not at each render. */
export function OverviewFilters({
  project,
  onChange,
  label = 'Overview filters',
}: {
  project: Project;
  onChange: (f: OverviewFilter) => void;
  label?: string;
}) {
  const [range, setRange] = useState<Range>('all');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [batch, setBatch] = useState('');
  const apply = (next: { range?: Range; from?: string; to?: string; batch?: string }) => {
    const r = next.range ?? range;
    const f = next.from ?? from;
    const t = next.to ?? to;
    const b = next.batch ?? batch;
    if (next.range !== undefined) setRange(r);
    if (next.from !== undefined) setFrom(f);
    if (next.to !== undefined) setTo(t);
    if (next.batch !== undefined) setBatch(b);
    const interval = intervalOf(r, f, t);
    onChange({ ...(interval ? { interval } : {}), ...(b ? { batches: [b] } : {}) });
  };
  return (
    <form className="filters" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      <SelectField label="Time" value={range} options={RANGES} onChange={(r) => apply({ range: r })} />
      {range === 'custom' && (
        <>
          <DateField label="From (UTC)" value={from} onChange={(v) => apply({ from: v })} />
          <DateField label="To (UTC, included)" value={to} onChange={(v) => apply({ to: v })} />
        </>
      )}
      <SelectField
        label="Batch"
        value={batch}
        options={[
          { value: '', label: 'Every batch' },
          ...project.batches.map((b) => ({ value: b._id ?? b.name, label: b.name })),
        ]}
        onChange={(b) => apply({ batch: b })}
      />
    </form>
  );
}
