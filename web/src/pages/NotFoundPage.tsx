import { Link } from 'react-router';

export default function NotFoundPage() {
  return (
    <div className="state state-empty">
      <h1>Page not found</h1>
      <p>
        There is no page at this address. Go to the <Link to="/projects">projects</Link>.
      </p>
    </div>
  );
}
