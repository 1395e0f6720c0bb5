// Run connector code under plain Node.js, for unit tests:
//
//     node --import $COPYCAT_HOME/guest-sdk/js/testing/register.mjs --test
//
// Resolves `copycat-sdk` (and its subpaths) to guest-sdk/js/src/, and the WIT
// imports the SDK uses (`copycat:connector/...`, `copycat:errant/...`,
// `wasi:filesystem/...`) to the in-memory host in ./host.js, which tests
// drive through `import { host } from 'copycat-sdk/testing'`. Needs Node.js
// >= 20.6.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
