/** Groups and projects: search, a group's projects and DORA charts. */
import { useState } from 'preact/hooks';
import { BASE, Link } from '../router.js';
import { Dora } from './dora.js';
import { Hooks } from './hooks.js';
import { PER_PAGE, PagedList, Show, projectPath, useClient, useLoad, usePaged } from './shared.js';

export function Home() {
  const client = useClient();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const groups = usePaged((page) => client.groups.all({ search: query || undefined, per_page: PER_PAGE }).page(page), [query]);
  const projects = usePaged((page) => client.projects.all({ search: query || undefined, per_page: PER_PAGE, order_by: 'last_activity_at' }).page(page), [query]);
  return (
    <>
      <h1>Groups and projects</h1>
      <form
        role="search"
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search.trim());
        }}
      >
        <label for="search">Search groups and projects</label>
        <input id="search" type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
      </form>
      <section aria-labelledby="groups-h">
        <h2 id="groups-h">Groups</h2>
        <PagedList paged={groups} label="Groups" empty="No groups.">
          {(items) => (
            <ul class="list">
              {items.map((g) => (
                <li key={g.id}>
                  <Link to={`${BASE}/groups/${g.id}`}>{g.full_path}</Link> <span class="muted">{g.description}</span>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
      <section aria-labelledby="projects-h">
        <h2 id="projects-h">Projects</h2>
        <PagedList paged={projects} label="Projects" empty="No projects.">
          {(items) => (
            <ul class="list">
              {items.map((pr) => (
                <li key={pr.id}>
                  <Link to={projectPath(pr.id)}>{pr.path_with_namespace}</Link> <span class="muted">{pr.description}</span>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </>
  );
}

export function Group(props: { id: string }) {
  const client = useClient();
  const group = useLoad(() => client.groups.show(props.id), [props.id]);
  const projects = usePaged((page) => client.groups.projects(props.id, { per_page: PER_PAGE, include_subgroups: true }).page(page), [props.id]);
  return (
    <Show loaded={group}>
      {(g) => (
        <>
          <h1>{g.full_name}</h1>
          <section aria-labelledby="gp-h">
            <h2 id="gp-h">Projects</h2>
            <PagedList paged={projects} label="Group projects" empty="No projects.">
              {(items) => (
                <ul class="list">
                  {items.map((pr) => (
                    <li key={pr.id}>
                      <Link to={projectPath(pr.id)}>{pr.path_with_namespace}</Link>
                    </li>
                  ))}
                </ul>
              )}
            </PagedList>
          </section>
          <Dora scope={{ group: props.id }} />
          <Hooks scope={{ group: props.id }} />
        </>
      )}
    </Show>
  );
}
