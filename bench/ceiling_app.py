"""The stack's own ceilings: a minimal Flask app under the same gunicorn configuration and pool.

POST /insert does one INSERT and COMMIT; GET /select/<n> one SELECT by primary key. bench/load.py
compares the game server with these, so that its figures are ratios to what the stack can do at all.
"""

import os

from flask import Flask, jsonify
from psycopg_pool import ConnectionPool

from server.config import Settings
from server.store import open_pool

settings = Settings.from_env()
assert settings.database_url, "DATABASE_URL is set by bench/load.py"
app = Flask(__name__)
pool: ConnectionPool = open_pool(
    settings.database_url,
    settings.pool_min_size,
    settings.pool_max_size,
    settings.pool_timeout,
    settings.statement_timeout_ms,
)
app.extensions["osmosis.pool"] = pool  # closed by deploy/gunicorn.conf.py when the worker exits
ROWS = int(os.environ.get("CEILING_ROWS", "1000"))


@app.post("/insert")
def insert():
    with pool.connection() as conn, conn.transaction():
        conn.execute("INSERT INTO ceiling_rows (body) VALUES (%s)", ("x" * 200,))
    return jsonify(ok=True), 201


@app.get("/select/<int:key>")
def select(key: int):
    with pool.connection() as conn:
        row = conn.execute("SELECT id, body FROM ceiling_rows WHERE id = %s", (key % ROWS + 1,)).fetchone()
    return jsonify(id=row[0], body=row[1])
