#!/bin/sh
# A node's container: cron for the scheduled backups (/etc/cron.d/osmosis-backups runs them as postgres, on the
# primary alone), then Patroni as postgres, in this process's place so that it gets the container's signals.
set -eu
cron
export HOME=/var/lib/postgresql
exec setpriv --reuid=postgres --regid=postgres --init-groups -- patroni /etc/patroni/patroni.yml
