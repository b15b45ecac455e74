import { type FormEvent, useState } from 'react';
import { useOutletContext } from 'react-router';
import { useAssetList, useCreateBatch } from '../../api/assets';
import type { Project } from '../../api/types';
import { TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { AssetThumb } from './AssetThumb';
import { ImportAssets } from './ImportAssets';
import { ImportLabels } from './ImportLabels';
import { UploadFiles } from './UploadFiles';

const PAGE_SIZE = 25;

function Batches({ project }: { project: Project }) {
  const [name, setName] = useState('');
  const create = useCreateBatch(project._id);
  const errorOf = errorLookup(fieldErrorsOf(create.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name.trim(), { onSuccess: () => setName('') });
  };
  return (
    <section className="card" aria-labelledby="batches-title">
      <h2 id="batches-title">Batches</h2>
      {project.batches.length === 0 ? (
        <p className="muted">No batches yet.</p>
      ) : (
        <ul>
          {project.batches.map((b) => (
            <li key={b._id ?? b.name}>{b.name}</li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} className="inline-form" noValidate>
        <TextField label="New batch name" value={name} onChange={setName} error={errorOf('batches')} />
        <button type="submit" disabled={!name.trim() || create.isPending}>
          Create batch
        </button>
      </form>
    </section>
  );
}

/** The project's assets: upload or import them, group them in batches, page through them. */
export default function AssetsPage() {
  const project = useOutletContext<Project>();
  const [page, setPage] = useState(1);
  const list = useAssetList(project._id, page, PAGE_SIZE);
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / PAGE_SIZE));
  return (
    <div>
      <h1>Assets</h1>
      <div className="columns">
        <div className="grow">
          <section className="card" aria-labelledby="assets-title">
            <h2 id="assets-title">Assets{list.data ? ` (${list.data.total})` : ''}</h2>
            {list.isPending && <Loading what="assets" />}
            {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
            {list.data?.assets.length === 0 && (
              <Empty title="No assets yet: upload files or import links with the forms." />
            )}
            {list.data && list.data.assets.length > 0 && (
              <>
                <table className="table compact">
                  <thead>
                    <tr>
                      <th scope="col">Preview</th>
                      <th scope="col">External id</th>
                      <th scope="col">URL</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.assets.map((a) => (
                      <tr key={a._id}>
                        <td>
                          <AssetThumb asset={a} />
                        </td>
                        <td>{a.externalId}</td>
                        <td className="cell-url">
                          {a.data}
                          {a.mediaWarning && (
                            <small className="field-error asset-warning">
                              Its size could not be read: {a.mediaWarning}.
                            </small>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <nav className="pager" aria-label="Asset pages">
                  <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                    Previous page
                  </button>
                  <span>
                    Page {page} of {pages}
                  </span>
                  <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                    Next page
                  </button>
                </nav>
              </>
            )}
          </section>
        </div>
        <div className="side">
          <UploadFiles project={project} />
          <ImportAssets project={project} />
          <ImportLabels project={project} />
          <Batches project={project} />
        </div>
      </div>
    </div>
  );
}
