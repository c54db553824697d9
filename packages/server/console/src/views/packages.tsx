/** The package feed: a project's packages, one package's versions with their download counts, and its files. */
import { Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, bytes, projectPath, useClient, useLoad, usePaged, when } from './shared.js';

export function Packages(props: { id: string }) {
  const client = useClient();
  const packages = usePaged((page) => client.packages.all(props.id, { per_page: PER_PAGE, order_by: 'created_at', sort: 'desc' }).page(page), [props.id]);
  return (
    <section aria-label="Packages">
      <PagedList paged={packages} label="Packages" empty="No packages.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Package</th><th scope="col">Version</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Published</th><th scope="col">Last downloaded</th></tr></thead>
            <tbody>
              {items.map((pk) => (
                <tr key={pk.id}>
                  <td><Link to={`${projectPath(props.id)}/packages/${pk.id}`}>{pk.name}</Link></td>
                  <td>{pk.version}</td>
                  <td>{pk.package_type}</td>
                  <td><Status status={pk.status} /></td>
                  <td>{when(pk.created_at)}</td>
                  <td>{when(pk.last_downloaded_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}

export function PackageDetail(props: { id: string; packageId: number }) {
  const client = useClient();
  const pkg = useLoad(() => client.packages.show(props.id, props.packageId), [props.id, props.packageId]);
  // Download counts are what the feed's search answers (per version and in all), as a NuGet client sees them.
  const counts = useLoad(async () => {
    if (!pkg.data) return null;
    const name = pkg.data.name.toLowerCase();
    const found = await client.nugetFeed.search({ projectId: props.id }, { q: pkg.data.name, take: 30, prerelease: true });
    return found.data.find((d) => d.id.toLowerCase() === name) ?? null;
  }, [props.id, pkg.data]);
  const files = usePaged((page) => client.packages.files(props.id, props.packageId, { per_page: PER_PAGE }).page(page), [props.id, props.packageId]);
  const downloads = (version: string) => counts.data?.versions.find((v) => v.version.toLowerCase() === version.toLowerCase())?.downloads;
  return (
    <Show loaded={pkg}>
      {(pk) => {
        const versions = [{ id: pk.id, version: pk.version, created_at: pk.created_at, tags: pk.tags }, ...pk.versions].sort((a, b) => b.id - a.id);
        return (
          <article>
            <h2>{pk.name} {pk.version} <Status status={pk.status} /></h2>
            <p class="muted">
              {pk.package_type} · published {when(pk.created_at)} · last downloaded {when(pk.last_downloaded_at)}
              {counts.data && ` · ${counts.data.totalDownloads} downloads in all`}
            </p>
            <section aria-labelledby="versions-h">
              <h2 id="versions-h">Versions</h2>
              <table>
                <thead><tr><th scope="col">Version</th><th scope="col">Tags</th><th scope="col">Published</th><th scope="col">Downloads</th></tr></thead>
                <tbody>
                  {versions.map((v) => (
                    <tr key={v.id}>
                      <td>{v.id === pk.id ? v.version : <Link to={`${projectPath(props.id)}/packages/${v.id}`}>{v.version}</Link>}</td>
                      <td>{v.tags.map((t) => t.name).join(', ')}</td>
                      <td>{when(v.created_at)}</td>
                      <td>{downloads(v.version) ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section aria-labelledby="files-h">
              <h2 id="files-h">Files</h2>
              <PagedList paged={files} label="Package files" empty="No files.">
                {(items) => (
                  <table>
                    <thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">SHA-256</th><th scope="col">Uploaded</th></tr></thead>
                    <tbody>
                      {items.map((f) => (
                        <tr key={f.id}><td>{f.file_name}</td><td>{bytes(f.size)}</td><td><code>{f.file_sha256.slice(0, 16)}…</code></td><td>{when(f.created_at)}</td></tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </PagedList>
            </section>
          </article>
        );
      }}
    </Show>
  );
}
