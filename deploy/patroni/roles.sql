-- The database and its two roles, least privilege (docs/operations.md, "Roles"): run once by Patroni's post_bootstrap
-- (create-database.sh) as the superuser, with psql variables owner_password and app_password.
--   osmosis_owner  owns the database and its schema: it runs the migrations (osmosis migrate), nothing else.
--   osmosis_app    what the servers connect as: reads and writes the tables the migrations made, and nothing more
--                  (no DDL, no ownership, no superuser); pg_monitor lets it see whether a synchronous standby
--                  confirms its commits and how far a replica has replayed (/readyz).
\set ON_ERROR_STOP on
CREATE ROLE osmosis_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE osmosis_app LOGIN PASSWORD :'app_password' IN ROLE pg_monitor;
CREATE DATABASE osmosis OWNER osmosis_owner;
\connect osmosis
-- PostgreSQL 15: the schema public belongs to the database's owner, and no one else may create in it.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO osmosis_app;
ALTER DEFAULT PRIVILEGES FOR ROLE osmosis_owner IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO osmosis_app;
ALTER DEFAULT PRIVILEGES FOR ROLE osmosis_owner IN SCHEMA public
    GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO osmosis_app;
