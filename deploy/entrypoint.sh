#!/bin/sh
# Container and service entrypoint: bring the database schema to head, then become gunicorn, so that
# gunicorn gets the signals (SIGTERM: finish the requests in flight, then stop).
set -eu
cd "$(dirname "$0")/.."
osmosis migrate
exec gunicorn --config deploy/gunicorn.conf.py "$@"
