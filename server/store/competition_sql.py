"""Every SQL statement about competitions: their announcements, their fields, their entrants' games and their close.
(A game's own write is sql.py's: its finish updates its entrant's row in the same statement, sql._WRITE_FINISH.)"""

_COMPETITION_COLUMNS = """
    c.id, c.name, c.format, c.variant, c.rules, c.entrants, c.starts_at, c.ends_at, c.limit_ms, c.winnable,
    c.max_entrants, c.hints, c.review_s, c.commitment, c.deal, c.announced_at, c.entrants_count, c.closed_at,
    c.standings_root, o.id AS organizer_id, o.name AS organizer_name, o.kind AS organizer_kind
"""
_COMPETITIONS = "competitions c JOIN players o ON o.id = c.organizer_id"

INSERT_COMPETITION = """
    INSERT INTO competitions (id, organizer_id, name, format, variant, rules, entrants, starts_at, ends_at, limit_ms,
                              winnable, max_entrants, hints, review_s, server_seed, commitment, deal, announced_at)
    VALUES (%(id)s, %(organizer_id)s, %(name)s, %(format)s, %(variant)s, %(rules)s, %(entrants)s, %(starts_at)s,
            %(ends_at)s, %(limit_ms)s, %(winnable)s, %(max_entrants)s, %(hints)s, %(review_s)s, %(server_seed)s,
            %(commitment)s, %(deal)s, %(announced_at)s)
"""

SELECT_COMPETITION = f"SELECT {_COMPETITION_COLUMNS} FROM {_COMPETITIONS} WHERE c.id = %(id)s"

SELECT_SEED = "SELECT server_seed FROM competitions WHERE id = %(id)s"

COUNT_OPEN_OF_ORGANIZER = (
    "SELECT count(*) FROM competitions WHERE organizer_id = %(organizer_id)s AND closed_at IS NULL"
)

_STATUS_FILTERS = {
    "open": "c.starts_at > %(now)s AND c.closed_at IS NULL",
    "running": "c.starts_at <= %(now)s AND c.closed_at IS NULL",
    "closed": "c.closed_at IS NOT NULL AND c.closed_at + make_interval(secs => c.review_s) > %(now)s",
    "final": "c.closed_at IS NOT NULL AND c.closed_at + make_interval(secs => c.review_s) <= %(now)s",
}


def competitions_page(status: str | None, after_cursor: bool) -> str:
    """The newest start first, of `status` at %(now)s if given, after the cursor (starts_at, id) if given."""
    conditions = [_STATUS_FILTERS[status]] if status else []
    conditions += ["(c.starts_at, c.id) < (%(starts_at)s, %(id)s)"] if after_cursor else []
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"""
    SELECT {_COMPETITION_COLUMNS} FROM {_COMPETITIONS}
    {where}
    ORDER BY c.starts_at DESC, c.id DESC
    LIMIT %(limit)s
"""


# Whether the player's player_joined entry is in the log before the competition's announcement: NULL while the
# player's own entry is not in the log yet (its order is not known); true when the announcement is not in it yet
# (it will come after).
JOINED_BEFORE = """
    SELECT CASE
        WHEN joined.index IS NULL THEN NULL
        WHEN announced.index IS NULL THEN true
        ELSE joined.index < announced.index
    END AS before
    FROM (SELECT min(index) AS index FROM log_leaves WHERE subject = %(player_id)s AND kind = 'player_joined') joined,
         (SELECT min(index) AS index FROM log_leaves
          WHERE subject = %(competition_id)s AND kind = 'competition_announced') announced
"""

# The field grows by one only while it has room: the count and the entry in one statement, so that concurrent
# entries never pass max_entrants.
ENTER = """
    WITH room AS (
        UPDATE competitions SET entrants_count = entrants_count + 1
        WHERE id = %(competition_id)s AND entrants_count < max_entrants
        RETURNING id
    )
    INSERT INTO competition_entries (competition_id, player_id, entered_at)
    SELECT id, %(player_id)s, %(entered_at)s FROM room
    RETURNING competition_id
"""

WITHDRAW = """
    WITH gone AS (
        DELETE FROM competition_entries
        WHERE competition_id = %(competition_id)s AND player_id = %(player_id)s AND game_id IS NULL
        RETURNING competition_id
    )
    UPDATE competitions SET entrants_count = entrants_count - 1 WHERE id IN (SELECT competition_id FROM gone)
    RETURNING id
"""

SELECT_ENTRANT = """
    SELECT e.competition_id, e.player_id, p.name, p.kind, e.entered_at, e.game_id, e.started_at
    FROM competition_entries e JOIN players p ON p.id = e.player_id
    WHERE e.competition_id = %(competition_id)s AND e.player_id = %(player_id)s
"""

# An entrant's game, claimed in the transaction that creates it: of concurrent starts only the first claims it.
CLAIM_GAME = """
    UPDATE competition_entries SET game_id = %(game_id)s, started_at = %(started_at)s, deadline = %(deadline)s
    WHERE competition_id = %(competition_id)s AND player_id = %(player_id)s AND game_id IS NULL
"""

# Every entrant with their game's progress; a finished game's figures as its finish wrote them, with the leaf index
# of its finish entry once the log has it.
SELECT_STANDINGS = """
    SELECT p.name, p.kind, e.game_id, e.started_at, e.struck, g.status, g.score, g.version, g.hints, g.updated_at,
           e.finished_status, e.finished_score, e.finished_actions, e.finished_elapsed_ms, leaf.index AS finish_index
    FROM competition_entries e
    JOIN players p ON p.id = e.player_id
    LEFT JOIN games g ON g.id = e.game_id
    LEFT JOIN log_leaves leaf ON leaf.leaf_hash = e.finished_leaf
    WHERE e.competition_id = %(competition_id)s
"""

SELECT_RUNNING_OUT = """
    SELECT game_id FROM competition_entries
    WHERE game_id IS NOT NULL AND finished_status IS NULL AND deadline <= %(now)s
    ORDER BY deadline
    LIMIT %(limit)s
"""

SELECT_NEXT_DUE = """
    SELECT least(
        (SELECT min(deadline) FROM competition_entries WHERE game_id IS NOT NULL AND finished_status IS NULL),
        (SELECT min(ends_at) FROM competitions WHERE closed_at IS NULL)
    )
"""

SELECT_DUE = """
    SELECT id FROM competitions WHERE closed_at IS NULL AND ends_at <= %(now)s ORDER BY ends_at LIMIT %(limit)s
"""

SELECT_UNREVEALED_GAMES = """
    SELECT g.id FROM competition_entries e JOIN games g ON g.id = e.game_id
    WHERE e.competition_id = %(competition_id)s AND NOT (g.deal ? 'server_seed')
    LIMIT %(limit)s
"""

# Every finish entry of the competition is in the log (its leaf index is known): the ties it breaks can be ranked.
FINISHES_LOGGED = """
    SELECT NOT EXISTS (
        SELECT FROM competition_entries e
        WHERE e.competition_id = %(competition_id)s AND e.finished_leaf IS NOT NULL
          AND NOT EXISTS (SELECT FROM log_leaves leaf WHERE leaf.leaf_hash = e.finished_leaf)
    )
"""

# The competition's row, locked against every start until the close commits: then no game can be made that the close
# did not see.
LOCK_TO_CLOSE = "SELECT id FROM competitions WHERE id = %(id)s AND closed_at IS NULL FOR UPDATE"

ANY_UNREVEALED = """
    SELECT EXISTS (
        SELECT FROM competition_entries e JOIN games g ON g.id = e.game_id
        WHERE e.competition_id = %(id)s AND NOT (g.deal ? 'server_seed')
    )
"""

CLOSE = """
    UPDATE competitions SET closed_at = %(closed_at)s, standings_root = %(standings_root)s
    WHERE id = %(id)s AND closed_at IS NULL
"""

STRIKE = """
    UPDATE competition_entries SET struck = %(struck)s
    WHERE competition_id = %(competition_id)s AND player_id = %(player_id)s
"""

AMEND_ROOT = "UPDATE competitions SET standings_root = %(standings_root)s WHERE id = %(id)s"
