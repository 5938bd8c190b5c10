// Shared by the node client tests: where the server is (run.sh starts it and exports RBKV_PORT)
// and the model the ordered checks compare with. Each test file uses a database of its own, so
// node --test can run the files in parallel against one server.
'use strict';

const port = Number(process.env.RBKV_PORT);
if (!Number.isInteger(port) || port <= 0) {
  throw new Error('RBKV_PORT is not set: run these tests through tests/clients/run.sh SERVER_BIN');
}

// rbkv orders keys as bytes (memcmp); for the ASCII keys used here that is UTF-16 code unit
// order, which is what Array.prototype.sort does without a comparator.
function sortedKeys(keys) {
  return [...keys].sort();
}

// Keys whose order differs from their numeric order (k:10 before k:2), so a scan that returned
// insertion or numeric order instead of byte order would fail.
function makeKeys(prefix, n) {
  const keys = [];
  for (let i = 0; i < n; i++) keys.push(`${prefix}${i}`);
  return keys;
}

module.exports = { host: '127.0.0.1', port, sortedKeys, makeKeys };
