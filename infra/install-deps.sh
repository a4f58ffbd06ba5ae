#!/usr/bin/env bash
# Installs the system packages the tests use that a fresh machine may lack, from Debian's archive:
# redis-server (real Redis for tests), chromium (browser tests), docker-compose (checks docker-compose.yml),
# the Postgres server binaries when initdb is nowhere to be found, and pg_basebackup (read-replica tests). Does nothing when all are present.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have redis-server || need+=(redis-server)
have chromium || [ -x /usr/bin/chromium ] || need+=(chromium)
have docker-compose || need+=(docker-compose)
if ! have initdb && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then need+=(postgresql); fi
# pg_basebackup makes the read-replica tests' standby; Debian ships it in the client package.
if ! have pg_basebackup && ! ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1; then
  need+=(postgresql-client)
fi

if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: redis-server, chromium, docker-compose, Postgres and pg_basebackup are present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# Debian starts a redis-server service on install; tests start their own on free ports, so stop it.
if [[ " ${need[*]} " == *" redis-server "* ]]; then $sudo service redis-server stop >/dev/null 2>&1 || true; fi
