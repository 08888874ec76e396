// The pricing service's two services, loaded from the proto at run time (no generated code),
// and what every caller needs: a call as a promise, and an error's google.rpc details.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'pricing', 'v1', 'pricing.proto');

// keepCase: the fields as the proto names them (table_id); longs as strings: uint64 fields
// (version, seq, stake_cents) can exceed JavaScript's 2^53; enums by name.
const definition = protoLoader.loadSync(PROTO, {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const pricing = grpc.loadPackageDefinition(definition).pricing.v1;

function connect(target) {
  const credentials = grpc.credentials.createInsecure();
  return {
    dealer: new pricing.DealerService(target, credentials),
    reads: new pricing.PricingService(target, credentials),
  };
}

// A unary call as a promise.
function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, (err, response) => (err ? reject(err) : resolve(response)));
  });
}

// google.rpc.Status, as the server sends it in the grpc-status-details-bin trailer, and the
// ErrorInfo among its details (declared here: only these fields are read).
const rpc = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'Any', id: 3 },
              },
            },
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            ErrorInfo: {
              fields: {
                reason: { type: 'string', id: 1 },
                domain: { type: 'string', id: 2 },
                metadata: { keyType: 'string', type: 'string', id: 3 },
              },
            },
          },
        },
      },
    },
  },
});
const Status = rpc.lookupType('google.rpc.Status');
const ErrorInfo = rpc.lookupType('google.rpc.ErrorInfo');

// The ErrorInfo of a failed call ({reason, domain, metadata}), or null if it carries none.
function errorInfo(err) {
  const raw = err.metadata ? err.metadata.get('grpc-status-details-bin') : [];
  if (!raw.length) return null;
  const status = Status.decode(raw[0]);
  for (const detail of status.details) {
    if (detail.type_url.endsWith('/google.rpc.ErrorInfo')) {
      const info = ErrorInfo.toObject(ErrorInfo.decode(detail.value));
      return { reason: info.reason, domain: info.domain, metadata: info.metadata || {} };
    }
  }
  return null;
}

// The status name of an error's code (grpc-js gives the number).
function codeName(err) {
  return Object.keys(grpc.status).find((name) => grpc.status[name] === err.code) || String(err.code);
}

// --target host:port (default the server's own default) and --table id from the command line.
function options(argv, defaults) {
  const found = { target: '127.0.0.1:50051', ...defaults };
  for (let i = 2; i < argv.length; i += 2) found[argv[i].replace(/^--/, '')] = argv[i + 1];
  return found;
}

module.exports = { grpc, connect, call, errorInfo, codeName, options };
