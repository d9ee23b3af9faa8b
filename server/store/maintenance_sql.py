"""The statements about the PostgreSQL server itself rather than the games (the game's are in sql.py, the players' in
player_sql.py): the embedded server's WAL archive (its synchronous standby and replication slot), and what a restore
reads and resets."""

import psycopg.sql

# The embedded server's WAL archive (store/wal_archive.py): commits wait for pg_receivewal, fed from its slot.
SHOW_SYNCHRONOUS_STANDBYS = "SHOW synchronous_standby_names"
SET_SYNCHRONOUS_STANDBYS = psycopg.sql.SQL("ALTER SYSTEM SET synchronous_standby_names = {}")
RELOAD_CONFIGURATION = "SELECT pg_reload_conf()"
CREATE_ARCHIVE_SLOT = """
SELECT pg_create_physical_replication_slot(%(slot)s, true)
WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = %(slot)s)
"""
DROP_IDLE_ARCHIVE_SLOT = """
SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = %(slot)s AND NOT active
"""

# A restore (store/backups.py): where recovery got to, and the settings it needed taken out after.
RESTORED_TO = """
SELECT pg_is_in_recovery(), pg_last_xact_replay_timestamp(), (SELECT timeline_id FROM pg_control_checkpoint())
"""
"""Whether recovery goes on, the time of the last transaction it replayed (None: none was), and the timeline."""

# What a backup took, said in its backup.json: the games, the public log's size (0 before its first checkpoint).
BACKED_UP = """
SELECT (SELECT count(*) FROM games), (SELECT coalesce(max(size), 0) FROM log_checkpoints),
       (SELECT count(*) FROM alembic_version)
"""

# Where the server's WAL is now: an archive holding WAL past it belongs to a history this database does not have.
CURRENT_WAL_LSN = "SELECT pg_current_wal_lsn()::text, pg_walfile_name(pg_current_wal_lsn())"
RESET_SETTING = psycopg.sql.SQL("ALTER SYSTEM RESET {}")
