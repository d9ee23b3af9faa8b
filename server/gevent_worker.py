"""gunicorn's gevent worker, letting a connection go as soon as the application has taken it over.

gunicorn's hook for applications that take a connection over (`ALREADY_HANDLED`, made for websockets)
otherwise keeps reading the connection for a next request for the keep-alive time, holding a greenlet and
the request's objects. The live tier hands event streams over this way (server/api/pusher.py).

Imported by gunicorn's master, which must not import psycopg (server/json_logs.py says why): gunicorn only.
"""

from gunicorn.workers.base_async import ALREADY_HANDLED
from gunicorn.workers.ggevent import GeventWorker


class Worker(GeventWorker):  # type: ignore[misc]
    def is_already_handled(self, respiter: object) -> bool:
        if respiter is ALREADY_HANDLED:
            raise StopIteration  # gunicorn's own way out: the connection is the application's now
        return False
