"""Every --help of the CLI is plain text with a description, examples and help for each option."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from gke_accel.cli.main import build_parser

REST = re.compile(r"``|:(func|class|mod|meth|attr):`|^\.\. ", re.M)


def helps(parser: argparse.ArgumentParser, name: str = "gke-accel") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from helps(child, f"{name} {sub}")


ALL = list(helps(build_parser()))


@pytest.mark.parametrize(("name", "parser"), ALL, ids=[n for n, _ in ALL])
def test_help_has_no_rest_markup(name: str, parser: argparse.ArgumentParser) -> None:
    text = parser.format_help()
    assert not REST.search(text), f"{name} --help: {REST.search(text)}"


def test_the_rest_check_catches_markup() -> None:
    assert REST.search("with ``--fail-on-destroy`` it exits 3") and not REST.search("with '--x' it exits 3")


@pytest.mark.parametrize("name", ["gke-accel workload new", "gke-accel init", "gke-accel schema", "gke-accel scan"])
def test_new_and_changed_commands_have_examples_and_help_for_every_option(name: str) -> None:
    parser = dict(ALL)[name]
    assert parser.description and "examples:" in (parser.epilog or "")
    undocumented = [a.dest for a in parser._actions if not a.help]
    assert undocumented == [], f"{name}: options without help: {undocumented}"
