"""A mistake in a construct's props ends an app with the message alone.

Constructs raise ``ConfigError`` at construction, listing every mistake with the field, the bad value
and what is valid. Uncaught, Python would print it under a traceback of jsii and construct frames; this
hook prints only the message and ends with exit status 2 (as ``gke-accel validate`` does for a config
file). Any other exception keeps the hook that was installed before. Catch ``ConfigError`` yourself to
handle it differently.
"""

from __future__ import annotations

import atexit
import os
import sys
from types import TracebackType

from gke_accel.model.core.errors import ConfigError

CONFIG_ERROR_EXIT = 2


def _hook(previous: object) -> object:
    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if not isinstance(value, ConfigError):
            previous(kind, value, tb)  # type: ignore[operator]
            return
        print(value.render(), file=sys.stderr)
        # an excepthook cannot choose the exit status: run the exit handlers (jsii stops its Node
        # process in one), flush, and leave with the config-error status.
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(CONFIG_ERROR_EXIT)

    hook.gke_accel = True  # type: ignore[attr-defined]
    return hook


def install_config_error_hook() -> None:
    """Install the hook once (a second import, or a hook of ours already in place, changes nothing)."""
    if getattr(sys.excepthook, "gke_accel", False):
        return
    sys.excepthook = _hook(sys.excepthook)  # type: ignore[assignment]
