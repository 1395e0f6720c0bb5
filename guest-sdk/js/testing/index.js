// copycat-sdk/testing: drive the in-memory host from a unit test (Node.js
// only; see register.mjs). Not available inside a component.
//
//     import { test } from 'node:test';
//     import assert from 'node:assert/strict';
//     import { host } from 'copycat-sdk/testing';
//     import { connector, sourceTask } from '../src/index.js';
//
//     test('resumes after the committed offset', () => {
//       host.reset();
//       host.offsets.set('stream-0', '41');
//       sourceTask.start([['topic', 't']]);
//       assert.equal(sourceTask.poll(1)[0].sourceOffset, '42');
//     });
//
// The exported `connector`/`sourceTask`/`sinkTask` objects take and return
// exactly what the host passes through the WIT (configs as [key, value]
// pairs, records in WIT shape, offsets as BigInt); errors are thrown as
// ConnectorError (`error.kind`: 'config', 'retriable' or 'fatal').
import { host } from './host.js';
import { _forgetGrants } from '../src/fs.js';

// The SDK's file helpers read the granted directories once per instance (as
// in a component, where they never change); tests change them.
const { reset, grant } = host;
host.reset = function () {
  reset.call(this);
  _forgetGrants();
};
host.grant = function (dir) {
  grant.call(this, dir);
  _forgetGrants();
};

export { host };
