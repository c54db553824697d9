/** The admin page: what the API shows an administrator (anyone else sees the API's refusal). */
import { PER_PAGE, PagedList, Show, useClient, useLoad, usePaged } from './shared.js';

export function Admin() {
  const client = useClient();
  // The API decides: application settings answer 403 to anyone but an administrator.
  const settings = useLoad(() => client.applicationSettings.show(), []);
  return (
    <>
      <h1>Admin</h1>
      <Show loaded={settings}>{() => <Users />}</Show>
    </>
  );
}

function Users() {
  const client = useClient();
  const users = usePaged((page) => client.users.all({ per_page: PER_PAGE }).page(page), []);
  return (
    <section aria-labelledby="users-h">
      <h2 id="users-h">Users</h2>
      <PagedList paged={users} label="Users" empty="No users.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Username</th><th scope="col">Name</th><th scope="col">State</th><th scope="col">Admin</th></tr></thead>
            <tbody>
              {items.map((u) => (
                <tr key={u.id}><td>{u.username}</td><td>{u.name}</td><td>{u.state}</td><td>{'is_admin' in u && u.is_admin ? 'yes' : 'no'}</td></tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}
