/**
 * Imports (migrations by direct transfer) of the signed-in user, and one import with each
 * entity's progress per relation (`stats`: source, fetched, imported), read again every 2 s
 * while the import runs.
 */
import { useEffect } from 'preact/hooks';
import { BASE, Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, useClient, useLoad, usePaged, when } from './shared.js';

const RUNNING = new Set(['created', 'started']);

export function Imports() {
  const client = useClient();
  const imports = usePaged((page) => client.bulkImports.all({ per_page: PER_PAGE, sort: 'desc' }).page(page), []);
  return (
    <>
      <h1>Imports</h1>
      <PagedList paged={imports} label="Imports" empty="No imports.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Import</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Started</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {items.map((im) => (
                <tr key={im.id}>
                  <td><Link to={`${BASE}/imports/${im.id}`}>Import {im.id}</Link></td>
                  <td><Status status={im.status} />{im.has_failures && <span class="muted"> (with failures)</span>}</td>
                  <td>{im.source_url}</td>
                  <td>{when(im.created_at)}</td>
                  <td>{when(im.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </>
  );
}

export function ImportDetail(props: { id: number }) {
  const client = useClient();
  const bulk = useLoad(() => client.bulkImports.show(props.id), [props.id]);
  const entities = usePaged((page) => client.bulkImports.allEntities({ bulkImportId: props.id, per_page: PER_PAGE }).page(page), [props.id]);
  const live = bulk.data ? RUNNING.has(bulk.data.status) : false;
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => {
      bulk.reload();
      entities.reload();
    }, 2000);
    return () => clearInterval(t);
  }, [live]);
  return (
    <Show loaded={bulk}>
      {(b) => (
        <>
          <p class="crumbs"><Link to={`${BASE}/imports`}>Imports</Link></p>
          <h1>Import {b.id} <Status status={b.status} /></h1>
          <p class="muted">From {b.source_url} · started {when(b.created_at)} · updated {when(b.updated_at)}{live && ' · updating live'}</p>
          <PagedList paged={entities} label="Import entities" empty="No entities.">
            {(items) =>
              items.map((en) => (
                <section key={en.id} class="entity" aria-labelledby={`entity-${en.id}`}>
                  <h2 id={`entity-${en.id}`}>
                    {en.entity_type} {en.source_full_path} → {en.destination_full_path} <Status status={en.status} />
                  </h2>
                  {Object.keys(en.stats).length === 0 ? (
                    <p class="muted">No relation counted yet.</p>
                  ) : (
                    <table>
                      <thead><tr><th scope="col">Relation</th><th scope="col">Progress</th><th scope="col">Source</th><th scope="col">Fetched</th><th scope="col">Imported</th></tr></thead>
                      <tbody>
                        {Object.entries(en.stats).map(([relation, s]) => (
                          <tr key={relation}>
                            <td>{relation}</td>
                            <td><progress max={Math.max(1, s.source)} value={s.imported} aria-label={`${relation}: ${s.imported} of ${s.source} imported`} /></td>
                            <td>{s.source}</td>
                            <td>{s.fetched}</td>
                            <td>{s.imported}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  {en.failures.length > 0 && (
                    <ul class="list" aria-label={`Failures of ${en.source_full_path}`}>
                      {en.failures.map((f, i) => <li key={i} class="error">{f.relation}: {f.exception_message}</li>)}
                    </ul>
                  )}
                </section>
              ))
            }
          </PagedList>
        </>
      )}
    </Show>
  );
}
