/**
 * The admin API's shapes (docs/admin-api.md), as its REST resources answer.
 * Written out here because the console uses a handful of them; the data
 * pages instead read every shape from the OpenAPI document at run time.
 */
export interface AdminApiKey {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export interface AdminNewApiKey extends AdminApiKey {
  readonly key: string;
}

export interface AdminWebhookEndpoint {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly filter: string | null;
  readonly source: 'config' | 'database';
  readonly paused: boolean;
  readonly timeoutMs: number;
  readonly retryForMs: number;
  readonly backoffMs: number;
  readonly deliveries: { readonly pending: number; readonly delivered: number; readonly dead: number };
  readonly secret?: string;
}

export interface AdminAttempt {
  readonly attempt: number;
  readonly at: string;
  readonly outcome: string;
  readonly code: number | null;
  readonly latencyMs: number | null;
  readonly error: string | null;
}

export interface AdminDelivery {
  readonly id: string;
  readonly endpoint: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly status: 'pending' | 'delivered' | 'dead';
  readonly attemptCount: number;
  readonly nextAt: string | null;
  readonly firstAt: string | null;
  readonly doneAt: string | null;
  readonly lastCode: number | null;
  readonly lastError: string | null;
  readonly attempts: readonly AdminAttempt[];
}

export interface AdminSchema {
  readonly sdl: readonly { readonly file: string; readonly text: string }[];
  readonly graphql: string;
  readonly model: {
    readonly roles: { readonly enum: string; readonly values: readonly string[]; readonly admin: string } | null;
  };
}
