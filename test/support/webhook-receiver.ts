/** A real HTTP webhook receiver for tests: it verifies each delivery with the Standard Webhooks library and can fail, hang or be down. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  readonly id: string;
  readonly body: string;
  /** The payload as `Webhook.verify` returned it: only deliveries whose signature verified are kept. */
  readonly payload: { id: string; type: string; timestamp: string; principal: unknown; data: Record<string, unknown> };
  readonly answered: number | 'hang';
}

/** What the receiver does with the next request: a status, or hang (never answer). */
export type Behaviour = number | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Answers in turn: `respond(500, 500)` fails twice, then answers `otherwise`. */
  respond(...next: Behaviour[]): void;
  otherwise: Behaviour;
  /** Requests whose signature did not verify (should stay 0). */
  readonly unverified: string[];
  /** Resolves when `count` deliveries (verified) have arrived, or rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<ReceivedWebhook[]>;
  /** Stops listening (the port is refused) and starts again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secret: string, port = 0): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const received: ReceivedWebhook[] = [];
  const unverified: string[] = [];
  const queue: Behaviour[] = [];
  const hanging = new Set<IncomingMessage>();
  let server = createServer();
  const receiver = {
    url: '',
    received,
    unverified,
    otherwise: 200 as Behaviour,
    respond: (...next: Behaviour[]) => queue.push(...next),
    waitFor: async (count: number, ms = 20_000) => {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`waited for ${count} webhooks, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received.slice(0, count);
    },
    down: () =>
      new Promise<void>((resolve) => {
        for (const request of hanging) request.socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    up: () => listen(Number(new URL(receiver.url).port)),
    close: async () => {
      if (server.listening) await receiver.down();
    },
  };
  const listen = (on: number): Promise<void> => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const behaviour = queue.shift() ?? receiver.otherwise;
        const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
        try {
          const payload = verifier.verify(body, headers) as ReceivedWebhook['payload'];
          received.push({ id: headers['webhook-id'] ?? '', body, payload, answered: behaviour });
        } catch (error) {
          unverified.push(String(error));
        }
        if (behaviour === 'hang') {
          hanging.add(request);
          return;
        }
        response.writeHead(behaviour).end();
      });
    });
    return new Promise<void>((resolve) => server.listen(on, '127.0.0.1', () => resolve()));
  };
  await listen(port);
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
