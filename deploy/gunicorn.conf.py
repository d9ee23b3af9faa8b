"""gunicorn settings for the Osmosis server; every value can be overridden from the environment.

The workers are gevent's: every connection is a greenlet, so that thousands of spectators' event streams
and long polls, and clients that send slowly, cost a socket and a few kilobytes each instead of holding
one of a few dozen threads (docs/scaling.md).
"""

import os
import resource
import shutil
import tempfile
from pathlib import Path

from gunicorn.glogging import Logger

from server.runtime import shared_counters

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
worker_class = "server.runtime.gevent_worker.Worker"
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "5000"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
# A request's line and headers must arrive within this many seconds, and an idle kept-alive connection is
# closed after it: gevent's worker bounds reading each request head by this time.
keepalive = int(os.environ.get("KEEPALIVE_SECONDS", "5"))
# What a request's head may hold (gunicorn's defaults, stated): past them the worker answers 414, 431 or 400
# as problem+json (server/runtime/gevent_worker.py; docs/api.md, "Limits").
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# Signals and the orchestrator manage the server; gunicorn's control socket (25.1 and later) would be one
# more listener, in the service user's home, shared by every instance of that user on the host.
control_socket_disable = True
accesslog = os.environ.get("ACCESS_LOG") or None  # the app logs each request as JSON, with its request id
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")
wsgi_app = "server.runtime.app:create_app()"


class AccessLogWhenAsked(Logger):
    """Given a logging configuration, gunicorn builds every request's access-log line even while the
    access logger is silenced; this one builds it only when ACCESS_LOG asks for an access log."""

    @property
    def access_log_enabled(self):
        return bool(self.cfg.accesslog)


logger_class = AccessLogWhenAsked

# Prometheus metrics summed over all workers: each writes its own files in this directory.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="osmosis-metrics-")

# The counters every worker shares (rate limits, solver jobs in flight), in a file the workers map: made
# here, in the master, so that they are this server's alone (server/runtime/shared_counters.py).
_counters_dir = tempfile.mkdtemp(prefix="osmosis-counters-")
os.environ[shared_counters.ENVIRONMENT] = str(shared_counters.create(Path(_counters_dir)))

logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "server.runtime.json_logs.JsonFormatter"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
    "root": {"level": loglevel.upper(), "handlers": ["stderr"]},
    "loggers": {
        "gunicorn.error": {"level": loglevel.upper(), "handlers": ["stderr"], "propagate": False},
        # Off unless ACCESS_LOG asks for it: the app's own JSON line per request says more.
        "gunicorn.access": {"level": "INFO" if accesslog else "WARNING", "handlers": ["stderr"], "propagate": False},
    },
}


def worker_exit(server, worker):
    """Let the waiting connections go, let the log's sequencer finish its turn, and close the database
    connections while the worker can still wait for them: a pool left to the garbage collector fails noisily
    under gevent at exit."""
    extensions = getattr(getattr(worker, "wsgi", None), "extensions", {})
    if "osmosis.sequencer" in extensions:
        extensions["osmosis.sequencer"].stop()
    if "osmosis.upkeep" in extensions:
        extensions["osmosis.upkeep"].stop()
    if "osmosis.referee" in extensions:
        extensions["osmosis.referee"].stop()
    if "osmosis.hub" in extensions:
        extensions["osmosis.hub"].stop()
    if "osmosis.pool" in extensions:
        extensions["osmosis.pool"].close()


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
    shutil.rmtree(_counters_dir, ignore_errors=True)


def on_starting(server):
    """As many open files as the system allows this user: every connection is one."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def post_worker_init(worker):
    """On SIGTERM, end this worker's event streams and long polls at once (they would otherwise hold the
    worker for the whole graceful timeout), then let gunicorn stop as usual."""
    import signal

    hub = getattr(worker.wsgi, "extensions", {}).get("osmosis.hub")
    if hub is None:  # another app under this configuration (the benchmark's ceiling app)
        return
    stop_gracefully = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame):
        hub.stop()
        stop_gracefully(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
