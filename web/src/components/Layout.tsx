import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { Loading } from './States';
import { TopBar } from './TopBar';

/** Every signed-in page: the top bar and the page under it. */
export function Layout() {
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <TopBar />
      <main id="content" className="page">
        <Suspense fallback={<Loading what="the page" />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
