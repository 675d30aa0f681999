// Preloaded into every server process of the benchmark (`node --import
// bench/lib/count-statements.mjs <server>`), Diglot's compiled CLI included,
// so that nothing is added to the product and every peer is measured the
// same way:
//
// - counts the SQL statements the process sends to its database, by wrapping
//   the drivers it loads: each `pg` Client#query call, and each better-sqlite3
//   Statement#run/get/all/iterate and Database#exec call is one statement;
// - answers `{ type: 'bench:stats' }` on the IPC channel with the count;
// - ends the process when the runner goes away (the channel disconnects), so
//   a killed benchmark never leaves servers behind.
//
// The wrappers cost one function call per statement, the same for every peer.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

let statements = 0;

const main = process.argv[1];
if (main !== undefined) {
  const require = createRequire(pathToFileURL(main));
  countPg(require);
  countSqlite(require);
}

function tryRequire(require, name) {
  try {
    return require(name);
  } catch {
    return undefined;
  }
}

function countPg(require) {
  const pg = tryRequire(require, 'pg');
  if (pg === undefined) return;
  const proto = pg.Client.prototype;
  const query = proto.query;
  proto.query = function countedQuery(...args) {
    statements++;
    return query.apply(this, args);
  };
}

function countSqlite(require) {
  const Database = tryRequire(require, 'better-sqlite3');
  if (Database === undefined) return;
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statementProto[method];
    statementProto[method] = function countedStatement(...args) {
      statements++;
      return original.apply(this, args);
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function countedExec(...args) {
    statements++;
    return exec.apply(this, args);
  };
}

if (process.send !== undefined) {
  process.on('message', (message) => {
    if (message !== null && typeof message === 'object' && message.type === 'bench:stats') {
      process.send({ type: 'bench:stats', id: message.id, statements });
    }
  });
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel must not keep a server alive on its own, nor count as work.
  process.channel?.unref();
}
