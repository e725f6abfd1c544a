"""The README's front door works as written: every shell command it shows exists (make targets in the
Makefile, gke-accel subcommands and options the CLI parses), every docs page is linked, the pool table
is what `synth` prints for dev, and the validation error it shows is what `validate` says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gke_accel.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]

README = ROOT / "README.md"
# Commands the README may show that are not this project's (checked by their own tools).
OTHER_TOOLS = {"gcloud", "kubectl", "."}


def shell_commands(text: str) -> list[str]:
    """Every command line of the ```sh blocks, continuation lines joined, comments dropped."""
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return {t for line in re.findall(r"(?m)^([\w .-]+):(?!=)", text) for t in line.split()}


def test_shell_commands_are_found_and_the_cli_ones_parse() -> None:
    commands = shell_commands(README.read_text())
    assert len(commands) >= 10
    targets = make_targets()
    parser = build_parser()
    for command in commands:
        words = shlex.split(command.split(">")[0])
        tool, args = words[0], words[1:]
        if tool == "make":
            wanted = [a for a in args if "=" not in a]
            assert wanted and set(wanted) <= targets, command
        elif tool == "gke-accel":
            try:
                parser.parse_args(args)
            except SystemExit as err:  # argparse: --help (0), or an unknown subcommand or option (2)
                if err.code == 0 and args[-1:] == ["--help"]:
                    continue
                pytest.fail(f"README command does not parse ({err.code}): {command}")
        else:
            assert tool in OTHER_TOOLS, f"README shows an unchecked command: {command}"


def test_a_wrong_option_is_caught_by_the_check() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(shlex.split("lint --env dev --no-such-option job.yaml"))
    assert "nosuchtarget" not in make_targets() and {"synth", "test", "cli", "deploy"} <= make_targets()


def test_activating_the_venv_is_how_the_cli_gets_on_path() -> None:
    commands = shell_commands(README.read_text())
    first_cli = next(i for i, c in enumerate(commands) if c.startswith("gke-accel"))
    assert ". .venv/bin/activate" in commands[:first_cli]


def test_every_docs_page_is_linked_and_every_link_exists() -> None:
    text = README.read_text()
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", text))
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"not linked from README: {sorted(pages - linked)}"
    assert linked <= pages, f"README links missing pages: {sorted(linked - pages)}"
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License\n                           Version 2.0")


def test_readme_stays_a_front_door() -> None:
    assert len(README.read_text().splitlines()) <= 160


def test_the_validation_error_shown_is_what_validate_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = README.read_text()
    shown = re.search(r"```\n\$ gke-accel validate --config config/dev.yaml\n(.*?)```", text, re.S)
    assert shown
    config = (ROOT / "config" / "dev.yaml").read_text()
    config = config.replace("topology: 2x2", "topology: 3x3").replace("gpus_per_node: 1", "gpus_per_node: 3")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "dev.yaml").write_text(config)
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["validate", "--config", "config/dev.yaml"]) == 2
    finally:
        os.chdir(cwd)
    assert capsys.readouterr().err == shown.group(1)
