#!/usr/bin/env bash
# A stand-in for python:3.11-slim, for build machines that cannot reach the public image
# registries: Debian bookworm (whose python3 is 3.11) bootstrapped from Debian's packages and
# imported, with this machine's CA bundle and pip configuration so that pip inside a build
# reaches the same package index as pip here.
#   deploy/standins/python.sh [TAG]   (default local/python:3.11-slim; kept if it exists)
set -euo pipefail
tag=${1:-local/python:3.11-slim}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag: already built"; exit 0
fi
root=$(mktemp -d /var/tmp/standin-python.XXXXXX)
trap 'rm -rf "$root"' EXIT
# minbase: what python:3.11-slim has (apt, dpkg, passwd for useradd), no more. wget answers
# the NATS stand-in's health check, which is built on this image too.
debootstrap --variant=minbase \
  --include=python3,python3-dev,python3-pip,python3-venv,ca-certificates,wget \
  bookworm "$root" "$mirror" >/dev/null
# pip installs into the image's Python as on python:3.11-slim (no PEP 668 marker there).
rm -f "$root"/usr/lib/python3*/EXTERNALLY-MANAGED
ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
ln -sf /usr/bin/pip3 "$root/usr/local/bin/pip"
# The same trust and index as this machine: the CA bundle (it may hold a proxy's CA) and
# pip's configuration files, those that exist.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
python3 - "$root/etc/pip.conf" /etc/pip.conf "${XDG_CONFIG_HOME:-$HOME/.config}/pip/pip.conf" <<'PY'
import configparser, sys
# One file of every setting (later files win, as pip reads them), without this machine's
# local folders and file:// indexes, which do not exist in the image.
merged = configparser.RawConfigParser()
merged.read(sys.argv[2:])
for section in merged.sections():
    for key, value in list(merged.items(section)):
        if key in {"find-links", "constraint"} or "file:" in value or "/opt/" in value:
            merged.remove_option(section, key)
with open(sys.argv[1], "w") as out:
    merged.write(out)
PY
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
# PIP_* of this environment that say where and how to fetch, not local paths.
env_changes=()
while IFS='=' read -r name value; do
  case "$name" in PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_TRUSTED_HOST|PIP_DEFAULT_TIMEOUT)
    env_changes+=(--change "ENV $name=$value");; esac
done < <(env | grep '^PIP_' || true)
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
  "${env_changes[@]}" --change 'CMD ["python3"]' - "$tag" >/dev/null
echo "$tag: built"
