"""A checkov process that imports checkov once, then forks a child per scan request.

Importing checkov takes ~3-4 s, most of a small scan. The review starts this process first, so the
import happens while the head is synthesized; each scan is then a fork that starts at once.
Protocol: one JSON line per request on stdin, ``{"args": [...], "out": path, "err": path}``; one JSON
line per reply on stdout, ``{"code": int}``, after the child wrote checkov's stdout to ``out``.
Standard library only at module level: it runs as a plain script.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    import checkov.main  # the slow part, once

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:  # the child: run checkov with stdout and stderr in files, then leave at once
            code = 2
            try:
                out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(out, 1)
                os.dup2(err, 2)
                sys.argv = ["checkov", *request["args"]]
                try:
                    result = checkov.main.Checkov(request["args"]).run()
                    code = int(result or 0)
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"code": os.waitstatus_to_exitcode(status)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
