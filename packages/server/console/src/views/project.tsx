/** A project: its header, its tabs, and the tab's view. */
import type { ComponentChildren } from 'preact';
import { BASE, Link } from '../router.js';
import { Pipelines, Schedules } from './ci.js';
import { Dora } from './dora.js';
import { Errors } from './errors.js';
import { Hooks } from './hooks.js';
import { Issues, MergeRequests } from './issues.js';
import { Packages } from './packages.js';
import { Environments, Releases } from './releases.js';
import { Show, projectPath, useClient, useLoad } from './shared.js';

const TABS = [
  ['issues', 'Issues'],
  ['merge_requests', 'Merge requests'],
  ['pipelines', 'Pipelines'],
  ['schedules', 'Schedules'],
  ['errors', 'Errors'],
  ['packages', 'Packages'],
  ['releases', 'Releases'],
  ['environments', 'Environments'],
  ['hooks', 'Webhooks'],
  ['dora', 'DORA'],
] as const;

export function Project(props: { id: string; tab: string; children?: ComponentChildren }) {
  const client = useClient();
  const project = useLoad(() => client.projects.show(props.id), [props.id]);
  return (
    <Show loaded={project}>
      {(pr) => (
        <>
          <p class="crumbs">
            <Link to={BASE}>Projects</Link> / {pr.namespace.full_path}
          </p>
          <h1>{pr.name}</h1>
          <nav aria-label="Project" class="tabs">
            {TABS.map(([tab, label]) => (
              <Link key={tab} to={`${projectPath(pr.id)}/${tab}`} aria-current={props.tab === tab ? 'page' : undefined}>
                {label}
              </Link>
            ))}
          </nav>
          {props.children ?? <ProjectTab id={String(pr.id)} tab={props.tab} />}
        </>
      )}
    </Show>
  );
}

function ProjectTab(props: { id: string; tab: string }) {
  switch (props.tab) {
    case 'merge_requests':
      return <MergeRequests id={props.id} />;
    case 'pipelines':
      return <Pipelines id={props.id} />;
    case 'schedules':
      return <Schedules id={props.id} />;
    case 'errors':
      return <Errors id={props.id} />;
    case 'packages':
      return <Packages id={props.id} />;
    case 'releases':
      return <Releases id={props.id} />;
    case 'environments':
      return <Environments id={props.id} />;
    case 'hooks':
      return <Hooks scope={{ project: props.id }} />;
    case 'dora':
      return <Dora scope={{ project: props.id }} />;
    default:
      return <Issues id={props.id} />;
  }
}
