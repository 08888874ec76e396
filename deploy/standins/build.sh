#!/usr/bin/env bash
# Local stand-ins for the three public images the Dockerfile and deploy/compose.yaml use, built
# from Debian's packages and PyPI for machines that cannot reach the public registries. Each is
# kept once built (the python one takes a debootstrap, about a minute). Prints the variables
# that point the build and compose at them.
set -euo pipefail
here=$(dirname "$0")
prefix=${STANDIN_PREFIX:-local}
python_image=$prefix/python:3.11-slim
"$here/python.sh" "$python_image" >&2
build() {  # build TAG DOCKERFILE, unless TAG exists
  if docker image inspect "$1" >/dev/null 2>&1; then echo "$1: already built" >&2; return; fi
  docker build -q --force-rm --build-arg BASE="$python_image" -t "$1" -f "$2" "$here" >/dev/null
  echo "$1: built" >&2
}
build "$prefix/nats:2.10-alpine" "$here/nats.Dockerfile"
# Debian bookworm's prometheus is 2.42: tagged as what it is.
build "$prefix/prometheus:v2.42.0" "$here/prometheus.Dockerfile"
echo "PYTHON_IMAGE=$python_image"
echo "NATS_IMAGE=$prefix/nats:2.10-alpine"
echo "PROMETHEUS_IMAGE=$prefix/prometheus:v2.42.0"
