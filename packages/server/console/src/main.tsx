/** The console's shell: the session, sign-in, the header and the route table. */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './console.css';
import { BASE, Link, match, navigate, usePath } from './router.js';
import { clientFor, currentSession, signIn, signOut, type Session } from './session.js';
import { Admin } from './views/admin.js';
import { Job, Pipeline } from './views/ci.js';
import { ErrorDetail } from './views/errors.js';
import { FlowDetail, Flows } from './views/flows.js';
import { Group, Home } from './views/home.js';
import { ImportDetail, Imports } from './views/imports.js';
import { Issue, MergeRequest } from './views/issues.js';
import { PackageDetail } from './views/packages.js';
import { Project } from './views/project.js';
import { ClientContext } from './views/shared.js';
import { TestMode } from './views/test-mode.js';

function SignIn(props: { onSignedIn(session: Session): void }) {
  const [mode, setMode] = useState<'token' | 'password'>('token');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // When the form can be used (the browser test reads this mark).
  useEffect(() => void performance.mark('console:interactive'), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      const session = await signIn(mode === 'token' ? { token: String(form.get('token')) } : { login: String(form.get('login')), password: String(form.get('password')) });
      props.onSignedIn(session);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>Sign in to Forgelet</h1>
      <fieldset class="switch">
        <legend>Sign in with</legend>
        <label><input type="radio" name="mode" checked={mode === 'token'} onChange={() => setMode('token')} /> Access token</label>
        <label><input type="radio" name="mode" checked={mode === 'password'} onChange={() => setMode('password')} /> Username and password</label>
      </fieldset>
      <form onSubmit={submit} method="post" action="#">
        {mode === 'token' ? (
          <p><label for="token">Personal access token</label><input id="token" name="token" type="password" autoComplete="off" required /></p>
        ) : (
          <>
            <p><label for="login">Username or email</label><input id="login" name="login" autoComplete="username" required /></p>
            <p><label for="password">Password</label><input id="password" name="password" type="password" autoComplete="current-password" required /></p>
          </>
        )}
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
    </main>
  );
}

function Routes(props: { path: string }) {
  const path = props.path;
  let m: Record<string, string> | null;
  if ((m = match('/projects/:id/issues/:iid', path))) return <Project id={m.id!} tab="issues"><Issue id={m.id!} iid={Number(m.iid)} /></Project>;
  if ((m = match('/projects/:id/merge_requests/:iid', path))) return <Project id={m.id!} tab="merge_requests"><MergeRequest id={m.id!} iid={Number(m.iid)} /></Project>;
  if ((m = match('/projects/:id/pipelines/:pid', path))) return <Project id={m.id!} tab="pipelines"><Pipeline id={m.id!} pipelineId={Number(m.pid)} /></Project>;
  if ((m = match('/projects/:id/jobs/:jid', path))) return <Project id={m.id!} tab="pipelines"><Job id={m.id!} jobId={Number(m.jid)} /></Project>;
  if ((m = match('/projects/:id/errors/:eid', path))) return <Project id={m.id!} tab="errors"><ErrorDetail id={m.id!} errorId={Number(m.eid)} /></Project>;
  if ((m = match('/projects/:id/packages/:pid', path))) return <Project id={m.id!} tab="packages"><PackageDetail id={m.id!} packageId={Number(m.pid)} /></Project>;
  if ((m = match('/projects/:id/:tab', path))) return <Project id={m.id!} tab={m.tab!} />;
  if ((m = match('/projects/:id', path))) return <Project id={m.id!} tab="issues" />;
  if ((m = match('/groups/:id', path))) return <Group id={m.id!} />;
  if (match('/admin', path)) return <Admin />;
  if ((m = match('/imports/:iid', path))) return <ImportDetail id={Number(m.iid)} />;
  if (match('/imports', path)) return <Imports />;
  if ((m = match('/flows/:fid', path))) return <FlowDetail id={Number(m.fid)} />;
  if (match('/flows', path)) return <Flows />;
  if (match('/test-mode', path)) return <TestMode />;
  if (path === BASE) return <Home />;
  return <p role="alert">Not found: {path}</p>;
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const path = usePath();
  useEffect(() => {
    currentSession().then(setSession, () => setSession(null));
  }, []);
  const client = useMemo(() => (session ? clientFor(session) : null), [session]);
  // The test-mode page exists when the API has its clock (servers in --test-mode, admins only).
  const [testMode, setTestMode] = useState(false);
  useEffect(() => {
    setTestMode(false);
    if (client && session?.user.is_admin) client.harness.clock().then(() => setTestMode(true), () => setTestMode(false));
  }, [client]);
  const nav = (to: string, label: string) => (
    <Link to={`${BASE}${to}`} aria-current={path === `${BASE}${to}` ? 'page' : undefined}>{label}</Link>
  );
  if (session === undefined) return <p class="muted">Loading…</p>;
  if (!session || !client) return <SignIn onSignedIn={setSession} />;
  return (
    <ClientContext.Provider value={client}>
      <a href="#main" class="skip">Skip to content</a>
      <header>
        <nav aria-label="Main">
          <Link to={BASE} class="brand">Forgelet</Link>
          <Link to={BASE} aria-current={path === BASE ? 'page' : undefined}>Projects</Link>
          {nav('/imports', 'Imports')}
          {nav('/flows', 'Agent flows')}
          {nav('/admin', 'Admin')}
          {testMode && nav('/test-mode', 'Test mode')}
        </nav>
        <span class="who">{session.user.name} (@{session.user.username})</span>
        <button
          type="button"
          onClick={() =>
            void signOut(session).then(() => {
              setSession(null);
              navigate(BASE);
            })
          }
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={path} />
      </main>
    </ClientContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
