/** Paths under /-/console, with the History API: links are real links (open in a new tab, keyboard). */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/-/console';

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener('console:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('console:navigate', update);
    };
  }, []);
  return path === '/' ? BASE : path.replace(/\/+$/, '') || BASE;
}

export function navigate(to: string): void {
  history.pushState(null, '', to);
  dispatchEvent(new Event('console:navigate'));
  scrollTo(0, 0);
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a
      href={props.to}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}

/** `/-/console/projects/:id/pipelines/:pid` against a pattern: the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const re = new RegExp(`^${BASE}${pattern.replace(/:(\w+)/g, (_, n: string) => (names.push(n), '([^/]+)'))}$`);
  const m = re.exec(path);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
}
