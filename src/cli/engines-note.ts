// Run by `npm install`'s dependencies script (the root project only), after the build: npm checks `engines`
// against the Node that runs npm itself, so on an older system Node it warns
// about every package wanting Node 22, although the scripts run on the Node 24
// the `node` dev dependency installed. This says so once (docs/operations.md).
const npmNode = /node\/v(\d+)/.exec(process.env['npm_config_user_agent'] ?? '');
if (npmNode?.[1] !== undefined && Number(npmNode[1]) < 22) {
  process.stdout.write(
    `diglot: the EBADENGINE warnings above are npm comparing its own Node ${npmNode[1]} with "engines"; ` +
      'every npm script here (npm start, npm test, npx diglot) runs on the Node 24 this install brought, so they are harmless.\n',
  );
}
