/** The console's shell: the pages arrive with the console issue; this is the frame they live in. */
export function App() {
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href="/">
          Annotary
        </a>
      </header>
      <main className="page">
        <h1>Annotary console</h1>
        <p>Projects, workflows, tasks and exports of your organization.</p>
      </main>
    </div>
  );
}
