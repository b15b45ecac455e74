import { type FormEvent, useState } from 'react';
import { type AuditFilters, auditExportHref, useAuditRecords } from '../../api/audit';
import { useOrgUsers } from '../../api/org';
import { SelectField, TextField } from '../../components/Field';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Empty, Loading } from '../../components/States';
import { TableHead } from './widgets';

const NO_FILTERS: AuditFilters = { operation: '', userId: '', targetId: '', from: '', to: '' };

/** Organization -> Audit: every change, who made it and from where; owners and admins only. */
export function AuditTab({ orgId }: { orgId: string }) {
  const [draft, setDraft] = useState<AuditFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const users = useOrgUsers(orgId);
  const records = useAuditRecords(orgId, filters);
  const emailOf = new Map((users.data?.users ?? []).map((u) => [u._id, u.email]));
  const set = (key: keyof AuditFilters) => (value: string) => setDraft({ ...draft, [key]: value });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
  };
  const rows = records.data?.pages.flatMap((p) => p.records) ?? [];
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <p className="muted">
        Every change made in this organization, newest first: who made it (and with which API key or console session),
        from which address, and the names of the fields it changed. Records cannot be edited.
      </p>
      <form onSubmit={apply} className="audit-filters" aria-label="Filter the audit log">
        <TextField label="Operation" value={draft.operation} onChange={set('operation')} hint="e.g. project.update" />
        <SelectField
          label="Person"
          value={draft.userId}
          onChange={set('userId')}
          options={[
            { value: '', label: 'Everyone' },
            ...(users.data?.users ?? []).map((u) => ({ value: u._id, label: u.email })),
          ]}
        />
        <TextField label="Target id" value={draft.targetId} onChange={set('targetId')} />
        <TextField label="From" type="datetime-local" value={draft.from} onChange={set('from')} />
        <TextField label="Until" type="datetime-local" value={draft.to} onChange={set('to')} />
        <button type="submit">Show records</button>
        <a href={auditExportHref(orgId, filters)} download="audit.ndjson">
          Download these records (NDJSON)
        </a>
      </form>
      {records.isPending ? (
        <Loading what="the audit log" />
      ) : records.error ? (
        <ErrorNotice error={records.error} what="the audit log" />
      ) : rows.length === 0 ? (
        <Empty title="No records match" />
      ) : (
        <table className="audit-table">
          <caption className="visually-hidden">Audit records</caption>
          <TableHead columns={['When', 'Who', 'Operation', 'Target', 'Fields', 'Address', 'Via']} />
          <tbody>
            {rows.map((r) => (
              <tr key={r._id}>
                <td>
                  <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
                </td>
                <td>{r.userId ? (emailOf.get(r.userId) ?? r.userId) : '—'}</td>
                <td>
                  <code>{r.operation}</code>
                </td>
                <td>
                  {r.target.type} <code>{r.target.id}</code>
                </td>
                <td>{r.fields.join(', ') || '—'}</td>
                <td>{r.address ?? '—'}</td>
                <td>{r.actor?.startsWith('session:') ? 'console session' : r.actor ? `API key ${r.actor}` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {records.hasNextPage && (
        <button type="button" onClick={() => void records.fetchNextPage()} disabled={records.isFetchingNextPage}>
          {records.isFetchingNextPage ? 'Loading…' : 'Show older records'}
        </button>
      )}
    </section>
  );
}
