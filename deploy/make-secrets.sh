#!/usr/bin/env bash
# Demo secrets for deploy/compose.yaml and `docker run`: a CA, one server certificate for the
# replicas (named pricing-1, pricing-2, localhost and 127.0.0.1: the health check asks on
# 127.0.0.1), and a dealer and a reader token file. Made once; delete the folder for new ones.
#   deploy/make-secrets.sh [DIR]   (default deploy/secrets, git-ignored)
# For a demo only: a production CA's key does not sit beside the certificates it signs.
set -euo pipefail
dir=${1:-$(dirname "$0")/secrets}
if [ -f "$dir/server.crt" ]; then echo "$dir: secrets already made"; exit 0; fi
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${ec[@]}" -days 365 -subj /CN=pricing-demo-ca \
  -keyout ca.key -out ca.crt 2>/dev/null
openssl req "${ec[@]}" -subj /CN=pricing -keyout server.key -out server.csr 2>/dev/null
printf '%s\n' "subjectAltName=DNS:pricing-1,DNS:pricing-2,DNS:localhost,IP:127.0.0.1" \
  "extendedKeyUsage=serverAuth" >server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 90 \
  -extfile server.ext -out server.leaf.crt 2>/dev/null
# The chain (leaf, then CA): the image's health check trusts it when PRICING_TLS_CA is unset.
cat server.leaf.crt ca.crt >server.crt
rm -f server.csr server.ext server.leaf.crt ca.srl
# Tokens: 43 URL-safe characters (the server refuses fewer than 16), one a line.
token() { openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n'; echo; }
token >dealers.txt
token >readers.txt
# The container runs as uid 10001, not root: it must be able to read what is mounted.
chmod 644 ./*
echo "$dir: CA, server certificate and tokens made"
