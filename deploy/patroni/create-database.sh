#!/bin/sh
# Patroni's post_bootstrap: run once, on the node that made the cluster, with a connection string to it.
set -eu
psql "$1" --set ON_ERROR_STOP=1 --command "CREATE DATABASE osmosis"
