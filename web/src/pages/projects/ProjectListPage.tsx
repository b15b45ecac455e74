import { useDeferredValue, useState } from 'react';
import { onlyWorks } from '../../api/access';
import { useProjectList } from '../../api/projects';
import { useSession } from '../../auth/useSession';
import { CheckboxField } from '../../components/Field';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { CreateProjectForm } from './CreateProjectForm';
import { ProjectRow } from './ProjectRow';

const PAGE_SIZE = 20;

/**
 * Every project the person can see, searched by name, a page at a time, with each one's
 * progress and the caller's role; archived projects on their own list. The form for a new
 * project is for people who run projects, not for those who only label or review.
 */
export default function ProjectListPage() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [archived, setArchived] = useState(false);
  const query = useDeferredValue(search.trim());
  const list = useProjectList(page, PAGE_SIZE, query, { archived, counts: true });
  const session = useSession();
  const creates = session.data !== undefined && !onlyWorks(session.data);
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const what = archived ? 'archived projects' : 'projects';
  return (
    <div className="projects-page">
      <div className="page-head">
        <h1>Projects</h1>
      </div>
      <div className="columns">
        <section aria-labelledby="project-list-title" className="card grow">
          <h2 id="project-list-title">{archived ? 'Archived projects' : 'Your projects'}</h2>
          <div className="inline-form">
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
            <CheckboxField
              label="Show archived projects"
              checked={archived}
              onChange={(on) => {
                setArchived(on);
                setPage(1);
              }}
            />
          </div>
          {list.isPending && <Loading what={what} />}
          {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
          {list.data && list.data.projects.length === 0 && (
            <Empty
              title={
                query
                  ? `No project's name contains “${query}”.`
                  : archived
                    ? 'No project is archived.'
                    : 'There are no projects yet.'
              }
            >
              {!query && !archived && creates && <p>Create the first one with the form beside this list.</p>}
            </Empty>
          )}
          {list.data && list.data.projects.length > 0 && (
            <>
              <div className="table-scroll">
                <table className="table project-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Progress</th>
                      <th scope="col">Your role</th>
                      <th scope="col">Created</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.projects.map((p) => (
                      <ProjectRow key={p._id} p={p} />
                    ))}
                  </tbody>
                </table>
              </div>
              <nav className="pager" aria-label="Project pages">
                <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous page
                </button>
                <span>
                  Page {page} of {pages} · {total} {total === 1 ? what.replace(/s$/, '') : what}
                </span>
                <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                  Next page
                </button>
              </nav>
            </>
          )}
        </section>
        {creates && <CreateProjectForm />}
      </div>
    </div>
  );
}
