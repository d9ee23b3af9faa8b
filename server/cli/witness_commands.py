"""`osmosis witness` (a C2SP tlog-witness for the logs named on its command line) and `osmosis keygen` (a new
note key: a log's, or a witness's)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..transparency.notes import COSIGNATURE_V1, ED25519, NoteError, generate_signer, parse_signer, parse_verifier
from ..witness.http import WitnessServer
from ..witness.ledger import FileLedger, LedgerError
from ..witness.protocol import Witness
from .log_commands import read_key


def add_commands(commands: Any) -> None:
    witness = commands.add_parser("witness", help="run a C2SP tlog-witness that cosigns the named logs' checkpoints")
    witness.add_argument(
        "--key",
        required=True,
        metavar="FILE",
        help="the witness's signing key (a cosignature key: osmosis keygen --witness)",
    )
    witness.add_argument(
        "--log",
        required=True,
        action="append",
        metavar="KEY",
        help="the verifier key of a log it follows, or its file (repeatable)",
    )
    witness.add_argument(
        "--state",
        required=True,
        type=Path,
        metavar="FILE",
        help="where it keeps the latest checkpoint it cosigned of each log (made on first start)",
    )
    witness.add_argument(
        "--listen",
        default="127.0.0.1:7380",
        metavar="HOST:PORT",
        help="the address to serve on (default 127.0.0.1:7380)",
    )
    witness.add_argument("--prefix", default="", metavar="PATH", help="a URL path prefix for both calls")
    witness.set_defaults(run=_witness)

    keygen = commands.add_parser("keygen", help="make a note signing key: write it to a file, print its verifier key")
    keygen.add_argument("name", help="the key's name: a log's origin (e.g. osmosis.example/log) or a witness's")
    keygen.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="FILE",
        help="the file for the private key (made with mode 0600; never overwritten)",
    )
    keygen.add_argument("--witness", action="store_true", help="a witness's cosignature key (type 0x04)")
    keygen.set_defaults(run=_keygen)


def _keygen(args: argparse.Namespace) -> int:
    try:
        signer = generate_signer(args.name, COSIGNATURE_V1 if args.witness else ED25519)
    except NoteError as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    try:
        descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        print(f"osmosis: cannot make {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    with os.fdopen(descriptor, "w") as file:
        file.write(signer.skey + "\n")
    print(signer.verifier.vkey)
    return 0


def _witness(args: argparse.Namespace) -> int:
    try:
        signer = parse_signer(read_key(args.key))
        logs = [parse_verifier(read_key(key)) for key in args.log]
        ledger = FileLedger(args.state)
        witness = Witness(signer, logs, ledger, time.time)
    except (OSError, NoteError, LedgerError) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    host, _, port = args.listen.rpartition(":")
    if not port.isdigit():
        print(f"osmosis: --listen is HOST:PORT, not {args.listen!r}", file=sys.stderr)
        return 2
    try:
        server = WitnessServer((host.strip("[]") or "0.0.0.0", int(port)), witness, args.prefix)
    except OSError as error:
        print(f"osmosis: cannot listen on {args.listen}: {error.strerror}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    signal.signal(signal.SIGTERM, lambda signum, frame: threading.Thread(target=server.shutdown).start())
    print(
        f"Witness {signer.name} on http://{host.strip('[]') or '0.0.0.0'}:{server.server_port}"
        f"{args.prefix.rstrip('/')}",
        flush=True,
    )
    print(f"Its verifier key (for LOG_WITNESSES and osmosis audit --witness-key): {signer.verifier.vkey}", flush=True)
    print("It follows: " + ", ".join(sorted(witness.origins)), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
