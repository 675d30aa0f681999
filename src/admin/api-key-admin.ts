import { API_KEY_NAME, generateApiKey, ROLE_NAME } from '../auth/api-key.js';
import type { KeyRevocations } from '../auth/key-revocations.js';
import { ApiError } from '../errors/api-error.js';
import type { Model } from '../schema/model.js';
import { ApiKeyStore, type ApiKeyRecord } from '../storage/api-keys.js';
import type { Database } from '../storage/dialect.js';
import { newId } from '../util/ids.js';
import { AdminInput } from './admin-input.js';

/** A key just made: the record, and the key itself, shown this once. */
export type NewApiKeyRecord = ApiKeyRecord & { readonly key: string };

export interface ApiKeyAdmin {
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord>;
  create(input: unknown): Promise<NewApiKeyRecord>;
  /** Revokes (again: the same answer); refused at once on every instance from then on. */
  revoke(id: string): Promise<ApiKeyRecord>;
}

/** API keys as `diglot keys` makes them (only a hash stored), for the admin API. */
export function createApiKeyAdmin(model: Model, db: Database, revocations: Pick<KeyRevocations, 'revoked'>, adminRole: string): ApiKeyAdmin {
  const store = new ApiKeyStore(db);
  const roles = new Set([...(model.roles?.values ?? []), adminRole]);
  const get = async (id: string): Promise<ApiKeyRecord> => {
    const found = (await store.list()).find((key) => key.id === id);
    if (found === undefined) throw new ApiError('NOT_FOUND', { detail: `API key ${id} does not exist` });
    return found;
  };
  return {
    list: () => store.list(),
    get,
    async create(body) {
      const input = new AdminInput(body, ['name', 'role']);
      const name = input.text('name', { required: true, shape: API_KEY_NAME, hint: 'use up to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit' });
      const role = input.text('role', { required: true, shape: ROLE_NAME, hint: 'must be a role name' });
      if (role !== undefined && !roles.has(role)) input.problem('/role', 'VALIDATION_FAILED', `is not a role of this schema (${[...roles].join(', ')})`);
      input.done();
      const { key, hash } = generateApiKey();
      const record: ApiKeyRecord = { id: newId(), name: name as string, role: role as string, createdAt: new Date().toISOString(), revokedAt: null };
      if (!(await store.insert({ ...record, hash }))) {
        throw new ApiError('UNIQUE_VIOLATION', { detail: `There is already an API key named ${record.name}`, errors: [{ pointer: '/name', code: 'UNIQUE_VIOLATION', detail: 'is taken' }] });
      }
      return { ...record, key };
    },
    async revoke(id) {
      const key = await get(id);
      if (key.revokedAt !== null) return key;
      // Revoked by id alone: `revoke` also takes a name, and an id must not be read as another key's name.
      await store.revoke(key.id, new Date().toISOString());
      await revocations.revoked(key.id);
      return get(id);
    },
  };
}
