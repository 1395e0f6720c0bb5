import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { onApiOutcome, ui } from './lib/api';
import { SignInLink } from './components/ui';
import { ClusterPage } from './pages/Cluster';
import { ConnectorPage } from './pages/Connector';
import { ConnectorsPage } from './pages/Connectors';
import { ErrorsPage } from './pages/Errors';
import { LoggersPage } from './pages/Loggers';
import { NewConnectorPage } from './pages/NewConnector';
import { PluginsPage } from './pages/Plugins';

const NAV: { href: string; label: string; testid: string; match: (p: string) => boolean }[] = [
  { href: ui.cluster, label: 'Cluster', testid: 'nav-cluster', match: (p) => p === '/ui' || p === '/ui/' },
  {
    href: ui.connectors,
    label: 'Connectors',
    testid: 'nav-connectors',
    match: (p) => p.startsWith('/ui/connectors') && p !== '/ui/connectors/new',
  },
  { href: ui.newConnector, label: 'New connector', testid: 'nav-new', match: (p) => p === '/ui/connectors/new' },
  { href: ui.plugins, label: 'Plugins', testid: 'nav-plugins', match: (p) => p.startsWith('/ui/plugins') },
  { href: ui.errors, label: 'Errors', testid: 'nav-errors', match: (p) => p.startsWith('/ui/errors') },
  { href: ui.loggers, label: 'Log levels', testid: 'nav-loggers', match: (p) => p.startsWith('/ui/loggers') },
];

/** The global status line: the last failure of a call to the worker, until a call succeeds. */
function ApiStatus() {
  const [error, setError] = useState<string | null>(null);
  const [answered, setAnswered] = useState(false);
  const [needsAuth, setNeedsAuth] = useState(false);
  useEffect(
    () =>
      onApiOutcome((ok, message, status) => {
        setAnswered(true);
        setError(ok ? null : message);
        setNeedsAuth(!ok && status === 401);
      }),
    [],
  );
  return (
    <p class={`api-status ${error ? 'api-status-error' : ''}`} data-testid="api-status" role="status" aria-live="polite" title={error ?? undefined}>
      {needsAuth && (
        <>
          <SignInLink />{' '}
        </>
      )}
      {error ?? (answered ? 'Connected' : 'Connecting…')}
    </p>
  );
}

function Header() {
  const { path } = useLocation();
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <div class="top-inner">
        <a class="brand" href={ui.cluster}>
          Copycat
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => {
              const current = n.match(path);
              return (
                <li key={n.href}>
                  <a href={n.href} data-testid={n.testid} aria-current={current ? 'page' : undefined} class={current ? 'current' : ''}>
                    {n.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <ApiStatus />
      </div>
    </header>
  );
}

/** Moves focus to the page's main area on navigation, for keyboard and screen-reader users. */
function FocusOnNavigate() {
  const { url } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    if (main && !main.contains(document.activeElement)) main.focus({ preventScroll: false });
    window.scrollTo(0, 0);
  }, [url.split('?')[0]]);
  return null;
}

function NotFound() {
  return (
    <div class="page">
      <h1>Not found</h1>
      <p>
        This page does not exist in the console. Go to the <a href={ui.connectors}>connectors</a> or the{' '}
        <a href={ui.cluster}>cluster</a>.
      </p>
    </div>
  );
}

/** One page per connector: another connector's page starts afresh (no message or editor carried over). */
function ConnectorRoute({ name }: { name: string }) {
  return <ConnectorPage key={name} name={name} />;
}

export function App() {
  return (
    <LocationProvider scope="/ui">
      <Header />
      <FocusOnNavigate />
      <main id="main" tabIndex={-1}>
        <ErrorBoundary>
          <Router>
            <Route path="/ui" component={ClusterPage} />
            <Route path="/ui/index.html" component={ClusterPage} />
            <Route path="/ui/connectors" component={ConnectorsPage} />
            <Route path="/ui/connectors/new" component={NewConnectorPage} />
            <Route path="/ui/connectors/:name" component={ConnectorRoute} />
            <Route path="/ui/plugins" component={PluginsPage} />
            <Route path="/ui/errors" component={ErrorsPage} />
            <Route path="/ui/loggers" component={LoggersPage} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </main>
    </LocationProvider>
  );
}
