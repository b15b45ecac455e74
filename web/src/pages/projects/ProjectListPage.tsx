import { useDeferredValue, useState } from 'react';
import { Link } from 'react-router';
import { useProjectList } from '../../api/projects';
import { Empty, ErrorNotice, Loading } from '../../components/States';
import { CreateProjectForm } from './CreateProjectForm';

const PAGE_SIZE = 20;

/** Every project the person can see, searched by name, a page at a time. */
export default function ProjectListPage() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const query = useDeferredValue(search.trim());
  const list = useProjectList(page, PAGE_SIZE, query);
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <div className="projects-page">
      <div className="page-head">
        <h1>Projects</h1>
      </div>
      <div className="columns">
        <section aria-labelledby="project-list-title" className="card grow">
          <h2 id="project-list-title">Your projects</h2>
          <div className="field">
            <label htmlFor="project-search">Search projects by name</label>
            <input
              id="project-search"
              type="search"
              value={search}
              onChange={(e) => {
                setSearch(e.target.value);
                setPage(1);
              }}
            />
          </div>
          {list.isPending && <Loading what="projects" />}
          {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
          {list.data && list.data.projects.length === 0 && (
            <Empty title={query ? `No project's name contains “${query}”.` : 'There are no projects yet.'}>
              {!query && <p>Create the first one with the form beside this list.</p>}
            </Empty>
          )}
          {list.data && list.data.projects.length > 0 && (
            <>
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Description</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.projects.map((p) => (
                    <tr key={p._id}>
                      <td>
                        <Link to={`/projects/${p._id}/workflow`}>{p.name}</Link>
                      </td>
                      <td className="muted">{p.description || '—'}</td>
                      <td>{new Date(p.createdAt).toLocaleDateString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <nav className="pager" aria-label="Project pages">
                <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous page
                </button>
                <span>
                  Page {page} of {pages} · {total} project{total === 1 ? '' : 's'}
                </span>
                <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                  Next page
                </button>
              </nav>
            </>
          )}
        </section>
        <CreateProjectForm />
      </div>
    </div>
  );
}
