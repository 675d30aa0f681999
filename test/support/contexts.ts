import { ANONYMOUS, type Principal } from '../../src/plan/principal.js';
import { serverContext, SILENT_LOG, type RequestContext } from '../../src/plan/request-context.js';

/** A request context for a test that calls the engine or a handler in-process: unlimited, silent. */
export function testContext(principal: Principal = ANONYMOUS): RequestContext {
  return serverContext(principal, SILENT_LOG);
}
