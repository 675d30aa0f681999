import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import { loadModel, type Model } from './model';
import { href, useRoute } from './router';
import { session, useCredential } from './session';
import { loadStart, type StartDocument } from './start';
import { ThemeToggle } from './parts/theme-toggle';
import { Notice, Progress } from './parts/status';
import { SignIn } from './pages/sign-in';
import { Overview } from './pages/overview';
import { DataList } from './pages/data-list';
import { RecordPage } from './pages/record-page';
import { SchemaPage } from './pages/schema-page';
import { KeysPage } from './pages/keys-page';
import { EventsPage } from './pages/events-page';

/** Whether the credential may use the admin API: asked of the server, never guessed from the token. */
function useAdmin(token: string | undefined): boolean | undefined {
  const [admin, setAdmin] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    setAdmin(undefined);
    if (token === undefined) return;
    // Asked through GraphQL, which answers a refusal with 200 and an error code: a REST 403 here would be a console error on every page load.
    api<{ data?: { adminApiKeys?: unknown } | null }>('/graphql', { method: 'POST', body: { query: '{ adminApiKeys { id } }' } }).then(
      ({ body }) => setAdmin(Array.isArray(body.data?.adminApiKeys)),
      () => setAdmin(false),
    );
  }, [token]);
  return admin;
}

export function App() {
  const credential = useCredential();
  const route = useRoute();
  const [start, setStart] = useState<StartDocument | undefined>(undefined);
  const [model, setModel] = useState<Model | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [modelError, setModelError] = useState<string | undefined>(undefined);
  const admin = useAdmin(credential?.accessToken);

  useEffect(() => {
    loadStart().then(setStart, (cause: unknown) => setError(`The server could not be asked what it is (GET /): ${messageOf(cause)}`));
  }, []);
  // Read once the start document is in (effects run after the paint): the sign-in form is on the screen while this loads.
  useEffect(() => {
    if (start === undefined) return;
    loadModel().then(setModel, (cause: unknown) => setModelError(`The API description could not be loaded: ${messageOf(cause)}`));
  }, [start]);

  const section = route.parts[0] ?? '';
  const nav = [
    { id: 'data', label: 'Data', show: true },
    { id: 'schema', label: 'Schema', show: true },
    { id: 'keys', label: 'Keys & accounts', show: admin === true },
    { id: 'events', label: 'Events & webhooks', show: true },
  ];

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href()}>
          {start?.name ?? 'Diglot'} <span>console</span>
        </a>
        {credential !== undefined && (
          <nav aria-label="Sections">
            <ul>
              {nav
                .filter((item) => item.show)
                .map((item) => (
                  <li key={item.id}>
                    <a href={href(item.id)} aria-current={section === item.id || (section === '' && item.id === 'data') ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
            </ul>
          </nav>
        )}
        <div class="who">
          <ThemeToggle />
          {credential !== undefined && (
            <>
              <span class="label" title={credential.label}>
                {credential.label}
                {credential.role !== undefined && <small> · {credential.role}</small>}
              </span>
              <button type="button" onClick={() => void session.signOut()}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {error !== undefined ? (
          <Notice kind="error">{error}</Notice>
        ) : start === undefined ? (
          <Progress label="Loading" />
        ) : credential === undefined ? (
          <SignIn start={start} />
        ) : modelError !== undefined ? (
          <Notice kind="error">{modelError}</Notice>
        ) : model === undefined ? (
          <Progress label="Loading the API description" />
        ) : (
          <Section model={model} start={start} section={section} parts={route.parts} query={route.query} admin={admin === true} />
        )}
      </main>
    </>
  );
}

function Section(props: { model: Model; start: StartDocument; section: string; parts: readonly string[]; query: URLSearchParams; admin: boolean }) {
  const { model, parts } = props;
  switch (props.section) {
    case '':
      return <Overview model={model} />;
    case 'data': {
      const type = parts[1] === undefined ? undefined : model.byName.get(parts[1]);
      if (parts[1] === undefined) return <Overview model={model} />;
      if (type === undefined) return <Notice kind="error">There is no type named {parts[1]} in this schema.</Notice>;
      if (parts[2] !== undefined) return <RecordPage key={`${type.name}/${parts[2]}`} model={model} type={type} id={parts[2]} admin={props.admin} />;
      return <DataList key={type.name} model={model} type={type} query={props.query} />;
    }
    case 'schema':
      return <SchemaPage model={model} admin={props.admin} />;
    case 'keys':
      return <KeysPage model={model} />;
    case 'events':
      return <EventsPage streamPath={props.start.links.events} admin={props.admin} />;
    default:
      return <Notice kind="error">Nothing here: {parts.join('/')}</Notice>;
  }
}
