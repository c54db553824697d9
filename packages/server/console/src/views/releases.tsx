/** Releases with their links; environments and deployments. */
import { Link } from '../router.js';
import { PER_PAGE, PagedList, Status, projectPath, useClient, usePaged, when } from './shared.js';

export function Releases(props: { id: string }) {
  const client = useClient();
  const releases = usePaged((page) => client.releases.all(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  return (
    <section aria-label="Releases">
      <PagedList paged={releases} label="Releases" empty="No releases.">
        {(items) =>
          items.map((r) => (
            <article key={r.tag_name} class="release" aria-labelledby={`release-${r.tag_name}`}>
              <h2 id={`release-${r.tag_name}`}>{r.name} <span class="muted">{r.tag_name} · released {when(r.released_at)}</span></h2>
              {r.description && <p class="body">{r.description}</p>}
              {r.assets.links.length > 0 && (
                <ul class="list" aria-label={`Links of ${r.name}`}>
                  {r.assets.links.map((l) => (
                    <li key={l.id}><a href={l.url} rel="noreferrer">{l.name}</a> <span class="muted">{l.link_type}</span></li>
                  ))}
                </ul>
              )}
            </article>
          ))
        }
      </PagedList>
    </section>
  );
}

export function Environments(props: { id: string }) {
  const client = useClient();
  const environments = usePaged((page) => client.environments.all(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  const deployments = usePaged((page) => client.deployments.all(props.id, { per_page: PER_PAGE, order_by: 'id', sort: 'desc' }).page(page), [props.id]);
  return (
    <section aria-label="Environments">
      <PagedList paged={environments} label="Environments" empty="No environments.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Environment</th><th scope="col">Tier</th><th scope="col">State</th></tr></thead>
            <tbody>{items.map((e) => <tr key={e.id}><td>{e.name}</td><td>{e.tier}</td><td>{e.state}</td></tr>)}</tbody>
          </table>
        )}
      </PagedList>
      <h2>Deployments</h2>
      <PagedList paged={deployments} label="Deployments" empty="No deployments.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Deployment</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col">Ref</th><th scope="col">Job</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  <td>#{d.iid}</td>
                  <td>{d.environment.name}</td>
                  <td><Status status={d.status} /></td>
                  <td>{d.ref} <span class="muted">{d.sha.slice(0, 8)}</span></td>
                  <td>{d.deployable ? <Link to={`${projectPath(props.id)}/jobs/${d.deployable.id}`}>{d.deployable.name}</Link> : '—'}</td>
                  <td>{when(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}
