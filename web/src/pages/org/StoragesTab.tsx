import { useState } from 'react';
import { type Storage, useDeleteStorage, useStorages } from '../../api/org';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { StorageBrowser } from './StorageBrowser';
import { StorageForm } from './StorageForm';
import { ConfirmButton, Pager, RoleNote, MadeBy, TableHead } from './widgets';

const LIMIT = 20;

/** Where a storage points, in a few words. */
function whereOf(s: Storage): string {
  if (s.host) return s.host;
  if (s.provider === 'AWS')
    return `${s.region ?? 'eu-central-1'}${s.s3AccessType === 'IAM_DELEGATED' ? ', delegated role' : ''}`;
  if (s.provider === 'AZURE') return `account ${s.publicKey ?? ''} (${s.azureAuthType ?? 'ACCOUNT_KEY'})`;
  return '';
}

/** Connected storages: every member lists and browses them; owners and admins connect and delete. */
export function StoragesTab({ isAdmin }: { isAdmin: boolean }) {
  const [page, setPage] = useState(1);
  const [browsing, setBrowsing] = useState<Storage | undefined>();
  const [created, setCreated] = useState<string | undefined>();
  const list = useStorages(page, LIMIT);
  const remove = useDeleteStorage();
  return (
    <div className="columns">
      <div className="grow">
        <section className="card" aria-labelledby="storages-title">
          <h2 id="storages-title">Storages{list.data ? ` (${list.data.total})` : ''}</h2>
          {list.isPending && <Loading what="the storages" />}
          {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
          {list.data?.storages.length === 0 && (
            <Empty title="No storage is connected yet.">
              <p>{isAdmin ? 'Connect one with the form.' : 'An owner or admin of the organization can connect one.'}</p>
            </Empty>
          )}
          {list.data && list.data.storages.length > 0 && (
            <table className="table">
              <TableHead columns={['Name', 'Provider', 'Where', 'Connected by']} actions />
              <tbody>
                {list.data.storages.map((s) => (
                  <tr key={s._id} className={created === s._id ? 'row-new' : undefined}>
                    <td>{s.name}</td>
                    <td>{s.provider}</td>
                    <td className="cell-url">
                      {whereOf(s)}
                      {s.s3UserArn && (
                        <div className="muted">
                          Trust {s.s3UserArn}, external id {s.s3ExternalId}
                        </div>
                      )}
                    </td>
                    <td>
                      <MadeBy by={s.createdBy} at={s.createdAt} />
                    </td>
                    <td>
                      <div className="actions">
                        <button type="button" onClick={() => setBrowsing(s)}>
                          Browse {s.name}
                        </button>
                        {isAdmin && (
                          <ConfirmButton
                            label={`Delete ${s.name}`}
                            question={`Delete the storage ${s.name}? Assets already imported keep their links only while it exists.`}
                            confirmLabel={`Yes, delete ${s.name}`}
                            busy={remove.isPending}
                            onConfirm={() =>
                              remove.mutate(s._id, {
                                onSuccess: () => browsing?._id === s._id && setBrowsing(undefined),
                              })
                            }
                          />
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <ErrorNotice place="form" error={remove.error} fieldsShown />
          {list.data && (
            <Pager label="Storage pages" page={page} total={list.data.total} limit={LIMIT} onPage={setPage} />
          )}
        </section>
        {browsing && <StorageBrowser key={browsing._id} storage={browsing} onClose={() => setBrowsing(undefined)} />}
      </div>
      <div className="side">
        <section className="card">
          {isAdmin ? (
            <StorageForm onCreated={(s) => setCreated(s._id)} />
          ) : (
            <RoleNote>
              Connecting and deleting storages is for owners and admins of the organization; you can browse them.
            </RoleNote>
          )}
        </section>
      </div>
    </div>
  );
}
