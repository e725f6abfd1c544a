"""``gke-accel schema``: the JSON Schema of ``config/<env>.yaml`` and the field reference, generated
from the config dataclasses (model only)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gke_accel.cli.common import EXIT_ERROR, EXIT_OK, Subcommands, add_command
from gke_accel.model import ConfigError, ConfigIssue


def generated(root: Path) -> dict[Path, str]:
    from gke_accel.model.schema.json_schema import SCHEMA_PATH, schema_text
    from gke_accel.model.schema.reference import REFERENCE_PATH, reference_text

    return {root / SCHEMA_PATH: schema_text(), root / REFERENCE_PATH: reference_text()}


def cmd_schema(args: argparse.Namespace) -> int:
    root = Path(args.root)
    files = generated(root)
    if args.check:
        stale = [str(p) for p, text in files.items() if not p.is_file() or p.read_text() != text]
        for name in stale:
            print(f"stale: {name} (run: gke-accel schema --write)", file=sys.stderr)
        return EXIT_ERROR if stale else EXIT_OK
    if args.write:
        for path, text in files.items():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            except OSError as err:
                raise ConfigError([ConfigIssue("--root", f"{path}: cannot be written ({err.strerror or err})",
                                               "the repository root (a folder you may write)")]) from None  # fmt: skip
            print(f"wrote {path}")
        return EXIT_OK
    schema, reference = files.values()
    sys.stdout.write(reference if args.reference else schema)
    return EXIT_OK


def register(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "schema",
        "JSON Schema of config/<env>.yaml (for editors) and the field reference, from the config classes",
        "gke-accel schema > gke-accel-config.schema.json",
        "gke-accel schema --reference | less",
        "gke-accel schema --write        # update schema/ and docs/config-reference.md",
        details=(
            "Editors with a YAML language server (VS Code's YAML extension and others) read the schema from\n"
            "a first line '# yaml-language-server: $schema=../schema/gke-accel-config.schema.json' and offer\n"
            "completion, hover text and inline errors. Rules that need the catalog stay with 'validate'."
        ),
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--reference", action="store_true", help="print the Markdown field reference instead")
    what.add_argument("--write", action="store_true", help="write both files under --root")
    what.add_argument("--check", action="store_true", help="exit 1 when a file under --root is out of date")
    p.add_argument("--root", default=".", help="repository root for --write and --check (default: .)")
    p.set_defaults(func=cmd_schema)
