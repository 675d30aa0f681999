import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import type { Model } from '../model';
import { href } from '../router';
import { Notice } from '../parts/status';

/** Every type of the schema with how many records the caller may see (one count read each). */
export function Overview(props: { model: Model }) {
  const [counts, setCounts] = useState<Record<string, string>>({});
  useEffect(() => {
    const controller = new AbortController();
    for (const type of props.model.types) {
      api<{ totalCount?: number }>(`/${type.path}?limit=0&count=true`, { signal: controller.signal }).then(
        ({ body }) => setCounts((old) => ({ ...old, [type.name]: String(body.totalCount ?? '?') })),
        (error: unknown) => setCounts((old) => ({ ...old, [type.name]: controller.signal.aborted ? '' : `not readable: ${messageOf(error)}` })),
      );
    }
    return () => controller.abort();
  }, [props.model]);
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Data</h1>
      {props.model.types.length === 0 && <Notice kind="info">This schema has no types.</Notice>}
      <ul class="type-grid">
        {props.model.types.map((type) => (
          <li key={type.name}>
            <a class="card type-card" href={href('data', type.name)}>
              <strong>{type.name}</strong>
              <span class="count" aria-live="polite">
                {counts[type.name] === undefined ? 'counting…' : /^\d+$/.test(counts[type.name] ?? '') ? `${counts[type.name]} records` : counts[type.name]}
              </span>
              {type.description !== undefined && <span class="muted small">{type.description}</span>}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
