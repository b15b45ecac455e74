import { Link, useParams } from 'react-router';

/** A section of the console that has not been built yet: said plainly, with where to go. */
export default function NotBuiltPage({ title }: { title: string }) {
  const { projectId } = useParams();
  return (
    <div>
      <h1>{title}</h1>
      <div className="state state-empty">
        <p className="state-title">This part of the console is not built yet.</p>
        <p>
          The API already offers it (see the API reference at <a href="/docs">/docs</a>).
          {projectId && (
            <>
              {' '}
              Meanwhile, the <Link to={`/projects/${projectId}/workflow`}>workflow</Link> shows the tasks waiting in
              each stage.
            </>
          )}
        </p>
      </div>
    </div>
  );
}
