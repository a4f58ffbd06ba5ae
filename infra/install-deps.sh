#!/usr/bin/env bash
# Installs the system packages the tests use that a fresh machine may lack, from Debian's archive:
# redis-server (real Redis for tests), chromium (browser tests), docker-compose (checks docker-compose.yml),
# and the Postgres server binaries when initdb is nowhere to be found. Does nothing when all are present.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have redis-server || need+=(redis-server)
have chromium || [ -x /usr/bin/chromium ] || need+=(chromium)
have docker-compose || need+=(docker-compose)
if ! have initdb && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then need+=(postgresql); fi

if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: redis-server, chromium, docker-compose and Postgres are present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# Debian starts a redis-server service on install; tests start their own on free ports, so stop it.
if [[ " ${need[*]} " == *" redis-server "* ]]; then $sudo service redis-server stop >/dev/null 2>&1 || true; fi
