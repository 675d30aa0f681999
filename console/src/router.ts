/**
 * Routes live in the URL's fragment (`/console#/data/User/42`): the server
 * serves one page at /console, and every view has a link a person can
 * bookmark, reload or open in another tab.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  readonly parts: readonly string[];
  readonly query: URLSearchParams;
}

function parse(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?', 2);
  return { parts: path.split('/').filter((part) => part !== '').map(decodeURIComponent), query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const update = (): void => setRoute(parse());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** `#/data/User/42`, with each part encoded. */
export function href(...parts: readonly string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function navigate(target: string, replace = false): void {
  if (replace) history.replaceState(null, '', target);
  else location.hash = target.replace(/^#/, '');
  if (replace) dispatchEvent(new HashChangeEvent('hashchange'));
}
