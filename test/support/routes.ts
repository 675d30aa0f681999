/** `printRoutes({ commonPrefix: false })` as (path template, methods) pairs. */
export function parseRoutes(tree: string): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    // A segment under the root route `/` is printed without its slash (`users` below `/`).
    const match = /^([│├└─\s]*?)([^\s│├└─]\S*) \(([^)]+)\)$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    routes.push({ path, methods: (match[3] ?? '').split(',').map((method) => method.trim()) });
  }
  return routes;
}
