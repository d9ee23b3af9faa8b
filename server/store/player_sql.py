"""Every SQL statement about players: their accounts and API tokens, the daily deals. (The games' are in sql.py.)"""

INSERT_PLAYER = """
    INSERT INTO players (id, name, name_key, kind, created_at)
    VALUES (%(id)s, %(name)s, %(name_key)s, %(kind)s, %(created_at)s)
"""

INSERT_TOKEN = """
    INSERT INTO player_tokens (id, player_id, token_hash, scopes, label, created_at)
    VALUES (%(id)s, %(player_id)s, %(token_hash)s, %(scopes)s, %(label)s, %(created_at)s)
"""

_TOKEN_COLUMNS = "t.id, t.player_id, t.token_hash, t.scopes, t.label, t.created_at, t.last_used_at, t.revoked_at"

# The token's use is noted in the same statement, at most once a minute: a bot acting ten times a second
# writes its token's row once a minute, not ten times a second.
AUTHENTICATE = f"""
    WITH found AS (
        SELECT {_TOKEN_COLUMNS}, p.name, p.kind, p.created_at AS player_created_at
        FROM player_tokens t JOIN players p ON p.id = t.player_id
        WHERE t.token_hash = %(token_hash)s AND t.revoked_at IS NULL
    ), noted AS (
        UPDATE player_tokens SET last_used_at = %(now)s
        WHERE id IN (SELECT id FROM found
                     WHERE last_used_at IS NULL OR last_used_at < %(now)s - interval '1 minute')
    )
    SELECT * FROM found
"""

SELECT_PLAYER = "SELECT id, name, kind, created_at FROM players WHERE name_key = %(name_key)s"

SELECT_LIVE_TOKENS = f"""
    SELECT {_TOKEN_COLUMNS} FROM player_tokens t
    WHERE t.player_id = %(player_id)s AND t.revoked_at IS NULL
    ORDER BY t.created_at, t.id
"""

# The player's row locked, so that two tokens added at once are counted one after the other.
LOCK_PLAYER = "SELECT id FROM players WHERE id = %(player_id)s FOR UPDATE"

COUNT_LIVE_TOKENS = "SELECT count(*) FROM player_tokens WHERE player_id = %(player_id)s AND revoked_at IS NULL"

REVOKE_TOKEN = """
    UPDATE player_tokens SET revoked_at = %(now)s
    WHERE id = %(id)s AND player_id = %(player_id)s AND revoked_at IS NULL
"""

# A day's deal of a preset, opened once: the first to open it logs its entry in the same statement; every other
# finds it opened (the table's row, or, if it was opened meanwhile, none: read it again).
OPEN_DAILY_DEAL = """
    WITH opened AS (
        INSERT INTO daily_deals (day, variant, id, server_seed, commitment, opened_at)
        VALUES (%(day)s, %(variant)s, %(id)s, %(server_seed)s, %(commitment)s, %(opened_at)s)
        ON CONFLICT DO NOTHING
        RETURNING day, variant, id, server_seed, commitment, opened_at
    ), logged AS (
        INSERT INTO log_pending (subject, kind, entry) SELECT id, %(log_kind)s, %(log_entry)s FROM opened
    )
    SELECT * FROM opened
    UNION ALL
    SELECT day, variant, id, server_seed, commitment, opened_at FROM daily_deals
    WHERE day = %(day)s AND variant = %(variant)s
"""

SELECT_DAILY_DEAL = """
    SELECT day, variant, id, server_seed, commitment, opened_at FROM daily_deals
    WHERE day = %(day)s AND variant = %(variant)s
"""

SELECT_DAILY_DEALS = """
    SELECT day, variant, id, server_seed, commitment, opened_at FROM daily_deals WHERE day = %(day)s
    ORDER BY variant
"""

SELECT_DAILY_GAMES_OF_PLAYER = """
    SELECT variant, id FROM games WHERE player_id = %(player_id)s AND daily = %(day)s
"""

# What the close of the days before `closed_before` has still to do (games_daily_unrevealed indexes exactly these),
# the games of the oldest accounts first: those a day's boards rank are closed before the games of accounts made by
# the hundred, however many one client made.
SELECT_UNREVEALED_DAILY_GAMES = """
    SELECT g.id FROM games g JOIN players p ON p.id = g.player_id
    WHERE g.daily IS NOT NULL AND NOT (g.deal ? 'server_seed') AND g.daily < %(closed_before)s
    ORDER BY g.daily, p.created_at, g.id
    LIMIT %(limit)s
"""

SELECT_PLAYER_STATS = """
    SELECT variant, games, wins, best_actions, best_game, ranked_games, ranked_wins, abandoned, undone FROM player_stats
    WHERE player_id = %(player_id)s
"""

SELECT_DAILY_DAYS = """
    SELECT variant, array_agg(daily ORDER BY daily) AS days FROM player_results
    WHERE player_id = %(player_id)s AND daily IS NOT NULL AND verified
    GROUP BY variant
"""

# What `osmosis rebuild-stats` reads: every player's finished game whose seeds are revealed, a page at a time.
SELECT_REVEALED_PLAYER_GAMES = """
    SELECT id FROM games
    WHERE player_id IS NOT NULL AND variant IS NOT NULL AND deal ? 'server_seed' AND id > %(after)s
    ORDER BY id
    LIMIT %(limit)s
"""

CLEAR_STATISTICS = "TRUNCATE player_stats, player_results"

INSERT_RESULT = """
    INSERT INTO player_results (game_id, player_id, kind, variant, daily, won, score, hints, actions, started_at,
                                ended_at, verified, public_deal, abandoned, undos)
    VALUES (%(game_id)s, %(player_id)s, %(kind)s, %(variant)s, %(daily)s, %(won)s, %(score)s, %(hints)s, %(actions)s,
            %(started_at)s, %(ended_at)s, %(verified)s, %(public_deal)s, %(abandoned)s, %(undos)s)
"""

# Which games the upkeep ended as abandoned: a fact of their own (games_abandoned), which the logs do not hold.
MARK_ABANDONED_RESULTS = """
    UPDATE player_results r SET abandoned = true FROM games_abandoned a WHERE a.game_id = r.game_id
"""

# When each game's actions were recorded, from its log.
TIME_RESULTS = """
    UPDATE player_results r SET first_action_at = acted.first_at, last_action_at = acted.last_at
    FROM (SELECT game_id, min(recorded_at) AS first_at, max(recorded_at) AS last_at FROM game_events
          WHERE kind IN ('card_played', 'card_moved_to_cell', 'cards_dealt', 'waste_redealt')
          GROUP BY game_id) AS acted
    WHERE acted.game_id = r.game_id
"""

# The sums from the results, all at once: the same as the write of each game adds them one by one.
SUM_RESULTS = """
    INSERT INTO player_stats (player_id, kind, variant, games, wins, best_actions, best_game, ranked_games, ranked_wins,
                              abandoned, undone)
    SELECT player_id, kind, variant, count(*), count(*) FILTER (WHERE won),
           min(actions) FILTER (WHERE won AND hints = 0 AND undos = 0),
           (array_agg(game_id ORDER BY actions, game_id) FILTER (WHERE won AND hints = 0 AND undos = 0))[1],
           count(*) FILTER (WHERE NOT public_deal AND undos = 0),
           count(*) FILTER (WHERE won AND NOT public_deal AND undos = 0),
           count(*) FILTER (WHERE abandoned), count(*) FILTER (WHERE undos > 0)
    FROM player_results
    WHERE verified
    GROUP BY player_id, kind, variant
"""

# A day's board of a preset and kind, a page after a position: won first, then cards home, fewest hints, fewest
# actions, least time from the first action to the last, then game id (the index's order, every key ascending;
# ordered by the keys one by one, as the index lists them, so that a page is read from it with no sort).
_DAILY_BOARD_KEY = """NOT r.won, -r.score, r.hints, r.actions,
                       coalesce(r.last_action_at - r.first_action_at, interval '0'), r.game_id"""

# A day's results, of the players who may rank on it: every one for a deal opened before the rule, else those
# whose joining the log holds before the deal's opening (an account made to scout the day's deal does not rank).
_DAILY_BOARD_ROWS = """
    FROM player_results r JOIN players p ON p.id = r.player_id
    LEFT JOIN daily_deals d ON d.day = r.daily AND d.variant = r.variant
    WHERE r.daily = %(day)s AND r.variant = %(variant)s AND r.kind = %(kind)s AND r.verified
      AND (d.id IS NULL OR NOT d.ranks_joined_before OR EXISTS (
          SELECT FROM log_leaves j, log_leaves o
          WHERE j.subject = r.player_id AND j.kind = 'player_joined'
            AND o.subject = d.id AND o.kind = 'daily_deal_opened' AND j.index < o.index))
"""

DAILY_BOARD = f"""
    SELECT r.game_id, p.name, r.kind, r.won, r.score, r.hints, r.actions,
           extract(epoch FROM coalesce(r.last_action_at - r.first_action_at, interval '0'))::float8 AS seconds
    {_DAILY_BOARD_ROWS}
      AND ({_DAILY_BOARD_KEY}) > (%(lost)s, %(minus_score)s, %(hints)s, %(actions)s, %(duration)s, %(game_id)s)
    ORDER BY {_DAILY_BOARD_KEY}
    LIMIT %(limit)s
"""

DAILY_BOARD_RANK = f"""
    SELECT count(*) AS rank {_DAILY_BOARD_ROWS}
      AND ({_DAILY_BOARD_KEY}) <= (%(lost)s, %(minus_score)s, %(hints)s, %(actions)s, %(duration)s, %(game_id)s)
"""

# The all-time board of a preset and kind, of the games of deals nobody could look up: by the win rate's lower
# bound, then more games, then player id.
_ALL_TIME_BOARD_ROWS = """
    WHERE s.variant = %(variant)s AND s.kind = %(kind)s AND s.ranked_games > 0 AND s.ranked_games >= %(min_games)s
"""

ALL_TIME_BOARD = f"""
    SELECT s.player_id, p.name, s.kind, s.ranked_games AS games, s.ranked_wins AS wins, s.lower_bound
    FROM player_stats s JOIN players p ON p.id = s.player_id
    {_ALL_TIME_BOARD_ROWS}
      AND (-s.lower_bound, -s.ranked_games, s.player_id) > (%(minus_bound)s, %(minus_games)s, %(player_id)s)
    ORDER BY -s.lower_bound, -s.ranked_games, s.player_id
    LIMIT %(limit)s
"""

# How many rows of the board come up to the one whose key is given: the rank of the row, worked out here rather
# than taken from a client's cursor.
ALL_TIME_BOARD_RANK = f"""
    SELECT count(*) AS rank FROM player_stats s {_ALL_TIME_BOARD_ROWS}
      AND (-s.lower_bound, -s.ranked_games, s.player_id) <= (%(minus_bound)s, %(minus_games)s, %(player_id)s)
"""

SELECT_UNVERIFIED_RESULTS = "SELECT game_id FROM player_results WHERE verified IS NULL ORDER BY game_id LIMIT %(limit)s"

# A result verified: marked, and if its game is valid, added to the player's sums under the preset (the best win
# is the one of fewest actions with no hint and no undo, the first game id of those, so that the order games are
# counted in does not matter; a game with an undo is counted apart, never ranked). Marked once: a result verified
# meanwhile by another process is left as it is.
MARK_VERIFIED = """
    WITH marked AS (
        UPDATE player_results SET verified = %(valid)s
        WHERE game_id = %(game_id)s AND verified IS NULL
        RETURNING player_id, kind, variant, won, hints, actions, game_id, verified, public_deal, abandoned, undos
    )
    INSERT INTO player_stats AS s (player_id, kind, variant, games, wins, best_actions, best_game, ranked_games,
                                   ranked_wins, abandoned, undone)
    SELECT player_id, kind, variant, 1, won::integer, CASE WHEN won AND hints = 0 AND undos = 0 THEN actions END,
           CASE WHEN won AND hints = 0 AND undos = 0 THEN game_id END, (NOT public_deal AND undos = 0)::integer,
           (won AND NOT public_deal AND undos = 0)::integer, abandoned::integer, (undos > 0)::integer
    FROM marked WHERE verified
    ON CONFLICT (player_id, variant) DO UPDATE SET
        games = s.games + 1,
        wins = s.wins + EXCLUDED.wins,
        ranked_games = s.ranked_games + EXCLUDED.ranked_games,
        ranked_wins = s.ranked_wins + EXCLUDED.ranked_wins,
        abandoned = s.abandoned + EXCLUDED.abandoned,
        undone = s.undone + EXCLUDED.undone,
        best_actions = CASE WHEN EXCLUDED.best_game IS NOT NULL AND (s.best_game IS NULL OR
            (EXCLUDED.best_actions, EXCLUDED.best_game) < (s.best_actions, s.best_game))
            THEN EXCLUDED.best_actions ELSE s.best_actions END,
        best_game = CASE WHEN EXCLUDED.best_game IS NOT NULL AND (s.best_game IS NULL OR
            (EXCLUDED.best_actions, EXCLUDED.best_game) < (s.best_actions, s.best_game))
            THEN EXCLUDED.best_game ELSE s.best_game END
"""
