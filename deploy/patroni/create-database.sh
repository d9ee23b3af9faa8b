#!/bin/sh
# Patroni's post_bootstrap: run once, as postgres, on the node that made the cluster, with a connection string to it.
# The database and its roles (roles.sql: an owner for the migrations, the servers' role that only reads and writes),
# then pgBackRest's stanza, which the WAL archive and the scheduled backups need before their first run.
set -eu
psql "$1" --set ON_ERROR_STOP=1 \
  --set owner_password="${OSMOSIS_OWNER_PASSWORD:?set OSMOSIS_OWNER_PASSWORD}" \
  --set app_password="${OSMOSIS_APP_PASSWORD:?set OSMOSIS_APP_PASSWORD}" \
  --file /etc/patroni/roles.sql
pgbackrest --stanza=osmosis stanza-create
