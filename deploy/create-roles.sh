#!/bin/sh
# PostgreSQL's image runs this once, when it makes its data directory (docker-entrypoint-initdb.d), as its superuser:
# the database and its two roles as deploy/patroni/roles.sql makes them, an owner that runs the migrations and the
# servers' role, which reads and writes the tables and cannot alter the log (docs/operations.md, "Roles").
set -eu
psql --username "$POSTGRES_USER" --dbname postgres --set ON_ERROR_STOP=1 \
  --set owner_password="${OSMOSIS_OWNER_PASSWORD:?set OWNER_PASSWORD in .env}" \
  --set app_password="${OSMOSIS_APP_PASSWORD:?set APP_PASSWORD in .env}" \
  --file /etc/osmosis/roles.sql
