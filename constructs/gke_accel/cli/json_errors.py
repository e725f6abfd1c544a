"""``--json`` always answers in JSON: a command run with it that fails before printing any JSON (a
config error, an unreadable file, no cluster to read, a wrong option) prints one object on stdout:

    {"ok": false, "exit_code": 2, "error": "<what stderr says>",
     "issues": [{"path": ..., "message": ..., "valid": ...}]}

The text still goes to stderr for people; the exit code is unchanged. ``review --json FILE`` writes its
own JSON file and is not affected.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from gke_accel.model import ConfigError

JSON_COMMANDS = ("cost", "explain", "lint", "simulate", "size", "verify")  # where --json is a flag
MAX_ERROR = 20_000  # characters of stderr kept for the object


class _Tee:
    """A stream that passes everything through and remembers how much (stdout) or what (stderr)."""

    def __init__(self, stream: TextIO, keep: bool) -> None:
        self.stream = stream
        self.keep = keep
        self.written = 0
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.written += len(text)
        if self.keep and sum(map(len, self.parts)) < MAX_ERROR:
            self.parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


_LAST: list[ConfigError] = []  # the ConfigError main reported in this run (for its issues)


def note_config_error(err: ConfigError) -> None:
    _LAST[:] = [err]


class Failure:
    """What ``main`` reports through: ``exit(code, error)`` returns ``code``, after printing the JSON
    failure object when JSON was asked for, the code is not 0 and nothing was printed on stdout."""

    def __init__(self, wanted: bool, out: _Tee | None, err: _Tee | None) -> None:
        self.wanted = wanted
        self.out = out
        self.err = err

    def exit(self, code: int, error: ConfigError | None = None) -> int:
        if not self.wanted or code == 0 or self.out is None or self.err is None or self.out.written:
            return code
        message = "".join(self.err.parts).strip()
        body: dict[str, Any] = {"ok": False, "exit_code": code, "error": message}
        error = error or (_LAST[0] if _LAST else None)
        if error is not None:
            body["issues"] = [{"path": i.path, "message": i.message, "valid": i.valid} for i in error.issues]
        self.out.stream.write(json.dumps(body, indent=2) + "\n")
        self.out.stream.flush()
        return code


def wants_json(argv: Sequence[str]) -> bool:
    command = next((a for a in argv if not a.startswith("-")), None)
    return command in JSON_COMMANDS and "--json" in argv


@contextlib.contextmanager
def json_failures(argv: Sequence[str]) -> Iterator[Failure]:
    """Record stdout and stderr while the command runs when ``argv`` asks for JSON; an argparse
    error (SystemExit 2) becomes the JSON failure object too."""
    _LAST.clear()
    if not wants_json(argv):
        yield Failure(False, None, None)
        return
    out, err = _Tee(sys.stdout, keep=False), _Tee(sys.stderr, keep=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    failure = Failure(True, out, err)
    try:
        yield failure
    except SystemExit as stop:
        if isinstance(stop.code, int) and stop.code:
            failure.exit(stop.code)
        raise
    finally:
        sys.stdout, sys.stderr = saved
