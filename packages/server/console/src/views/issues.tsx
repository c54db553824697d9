/** Issues and merge requests with their notes, emoji, state events and approvals. */
import { Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, projectPath, useClient, useLoad, usePaged, when } from './shared.js';

export function Issues(props: { id: string }) {
  const client = useClient();
  const issues = usePaged((page) => client.issues.all(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  return (
    <section aria-label="Issues">
      <PagedList paged={issues} label="Issues" empty="No issues.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Issue</th><th scope="col">State</th><th scope="col">Author</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id}>
                  <td><Link to={`${projectPath(props.id)}/issues/${i.iid}`}>#{i.iid} {i.title}</Link></td>
                  <td><Status status={i.state} /></td>
                  <td>{i.author?.username}</td>
                  <td>{when(i.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}

export function MergeRequests(props: { id: string }) {
  const client = useClient();
  const mrs = usePaged((page) => client.mergeRequests.allInProject(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  return (
    <section aria-label="Merge requests">
      <PagedList paged={mrs} label="Merge requests" empty="No merge requests.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Merge request</th><th scope="col">State</th><th scope="col">Branches</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.id}>
                  <td><Link to={`${projectPath(props.id)}/merge_requests/${m.iid}`}>!{m.iid} {m.title}</Link></td>
                  <td><Status status={m.state} /></td>
                  <td>{m.source_branch} → {m.target_branch}</td>
                  <td>{when(m.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}

/** Notes, emoji and state events of an issue or merge request. */
function Discussion(props: { id: string; iid: number; kind: 'issues' | 'merge_requests' }) {
  const client = useClient();
  const isIssue = props.kind === 'issues';
  const keys = [props.id, props.iid, props.kind];
  const notes = usePaged((page) => (isIssue ? client.issueNotes : client.mergeRequestNotes).all(props.id, props.iid, { per_page: PER_PAGE, sort: 'asc' }).page(page), keys);
  const emoji = usePaged((page) => (isIssue ? client.issueAwardEmoji : client.mergeRequestAwardEmoji).all(props.id, props.iid, { per_page: PER_PAGE }).page(page), keys);
  const events = usePaged((page) => (isIssue ? client.issueStateEvents : client.mergeRequestStateEvents).all(props.id, props.iid, { per_page: PER_PAGE }).page(page), keys);
  return (
    <>
      <section aria-labelledby="emoji-h">
        <h2 id="emoji-h">Emoji</h2>
        <PagedList paged={emoji} label="Emoji" empty="None.">
          {(items) => <ul class="chips">{items.map((e) => <li key={e.id}>:{e.name}: <span class="muted">{e.user.username}</span></li>)}</ul>}
        </PagedList>
      </section>
      <section aria-labelledby="events-h">
        <h2 id="events-h">State events</h2>
        <PagedList paged={events} label="State events" empty="None.">
          {(items) => <ul class="list">{items.map((e) => <li key={e.id}><Status status={e.state} /> by {e.user?.username ?? '—'} at {when(e.created_at)}</li>)}</ul>}
        </PagedList>
      </section>
      <section aria-labelledby="notes-h">
        <h2 id="notes-h">Notes</h2>
        <PagedList paged={notes} label="Notes" empty="No notes.">
          {(items) => (
            <ol class="notes">
              {items.map((n) => (
                <li key={n.id} class={n.system ? 'system' : ''}>
                  <p class="meta">{n.author.username} · {when(n.created_at)}</p>
                  <p class="body">{n.body}</p>
                </li>
              ))}
            </ol>
          )}
        </PagedList>
      </section>
    </>
  );
}

export function Issue(props: { id: string; iid: number }) {
  const client = useClient();
  const issue = useLoad(() => client.issues.show(props.id, props.iid), [props.id, props.iid]);
  return (
    <Show loaded={issue}>
      {(i) => (
        <article>
          <h2>#{i.iid} {i.title} <Status status={i.state} /></h2>
          <p class="muted">Opened by {i.author?.username} at {when(i.created_at)}</p>
          {i.description && <p class="body">{i.description}</p>}
          <Discussion id={props.id} iid={props.iid} kind="issues" />
        </article>
      )}
    </Show>
  );
}

export function MergeRequest(props: { id: string; iid: number }) {
  const client = useClient();
  const mr = useLoad(() => client.mergeRequests.show(props.id, props.iid), [props.id, props.iid]);
  const approvals = useLoad(() => client.mergeRequestApprovals.state(props.id, props.iid), [props.id, props.iid]);
  return (
    <Show loaded={mr}>
      {(m) => (
        <article>
          <h2>!{m.iid} {m.title} <Status status={m.state} /></h2>
          <p class="muted">{m.source_branch} → {m.target_branch}, by {m.author?.username}</p>
          {m.description && <p class="body">{m.description}</p>}
          <section aria-labelledby="approvals-h">
            <h2 id="approvals-h">Approvals</h2>
            <Show loaded={approvals}>
              {(a) => (
                <p>
                  {a.approvals_left === 0 ? 'Approved' : `${a.approvals_left} approval(s) left`}
                  {a.approved_by.length > 0 && ` · approved by ${a.approved_by.map((x) => x.user.username).join(', ')}`}
                </p>
              )}
            </Show>
          </section>
          <Discussion id={props.id} iid={props.iid} kind="merge_requests" />
        </article>
      )}
    </Show>
  );
}
