"""Reading config files: every hostile or broken input is one clear issue, never a traceback."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gke_accel.model.core.yaml_input import (
    MAX_CONFIG_BYTES,
    MAX_VALUES,
    ConfigInputError,
    decode_config,
    load_config_file,
    parse_config_text,
    read_config_bytes,
)


def _messages(err: pytest.ExceptionInfo[ConfigInputError]) -> list[str]:
    return [f"{i.path}: {i.message}" for i in err.value.issues]


def test_plain_yaml_loads_and_timestamps_stay_text() -> None:
    data = parse_config_text("a: 1\nstart: 2025-01-04T03:00:00Z\nday: 2025-01-04\n")
    assert data == {"a": 1, "start": "2025-01-04T03:00:00Z", "day": "2025-01-04"}


def test_duplicate_keys_are_all_reported_with_lines() -> None:
    with pytest.raises(ConfigInputError) as err:
        parse_config_text("a: 1\nb: 2\nnested: {x: 1, x: 2}\na: 3\n")
    assert _messages(err) == [
        "line 3: repeats the key 'x' (first at line 3)",
        "line 4: repeats the key 'a' (first at line 1)",
    ]


def test_merge_keys_may_be_overridden() -> None:
    assert parse_config_text("base: &b {x: 1, y: 2}\nm: {<<: *b, x: 3}\n")["m"] == {"x": 3, "y": 2}


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    started = time.perf_counter()
    with pytest.raises(ConfigInputError) as err:
        parse_config_text("\n".join(lines))
    assert time.perf_counter() - started < 1.0
    assert f"more than {MAX_VALUES} values" in _messages(err)[0]


def test_modest_aliases_are_fine() -> None:
    assert parse_config_text("a: &a [1, 2]\nb: *a\nc: *a\n")["c"] == [1, 2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("&a [*a]", "anchor that contains an alias to itself"),
        ("[" * 3000, "nests deeper than"),
        ("x: [" + "[" * 80 + "]" * 81 + "\n", "nests deeper than 64 levels"),
        ("x: " + "9" * 5000, "is not valid YAML"),
        ("a: 1\n---\nb: 2\n", "is not valid YAML"),
        ("!!python/object:os.system x", "could not determine a constructor"),
        ("x: !!binary zz", "is not valid YAML"),
        ("? [a]\n: 1", "unhashable key"),
        ("a: [1, 2", "is not valid YAML"),
        ("a: \x07", "is not valid YAML"),
    ],
)
def test_broken_yaml_is_one_clear_issue(text: str, expected: str) -> None:
    with pytest.raises(ConfigInputError) as err:
        parse_config_text(text)
    assert expected in " ".join(_messages(err))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\xff\xfea\x00", "(file): is UTF-16 text"),
        (b"a: 1\nb: \xe9t\xe9\n", "line 2: is not UTF-8 text: byte 0xe9 at offset 8"),
    ],
)
def test_encoding_errors(data: bytes, expected: str) -> None:
    with pytest.raises(ConfigInputError) as err:
        decode_config(data)
    assert _messages(err) == [expected]


def test_utf8_text_is_accepted() -> None:
    assert decode_config("name: caf\u00e9\n".encode()) == "name: caf\u00e9\n"


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    # YAML 1.2 section 5.2: a stream may begin with a byte order mark; Windows editors write one
    path = tmp_path / "dev.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_config_file(path) == {"a": 1}


def test_many_values_without_aliases_are_not_called_an_alias_bomb() -> None:
    text = "labels:\n" + "".join(f"  k{i}: v\n" for i in range(60_000))
    with pytest.raises(ConfigInputError) as err:
        parse_config_text(text)
    (message,) = _messages(err)
    assert "holds more than 100000 values" in message and "alias" not in message
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"b{i}: &b{i} [{', '.join(['*a' if i == 0 else f'*b{i - 1}'] * 10)}]\n" for i in range(5)
    )
    with pytest.raises(ConfigInputError, match="through aliases"):
        parse_config_text(bomb)


def test_directory_fifo_device_and_missing_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    cases = {
        tmp_path: "is a directory",
        fifo: "is not a regular file",
        Path("/dev/null"): "is not a regular file",
        tmp_path / "missing.yaml": "cannot be read",
    }
    for path, expected in cases.items():
        started = time.perf_counter()
        with pytest.raises(ConfigInputError) as err:
            read_config_bytes(path)
        assert time.perf_counter() - started < 1.0  # a FIFO without a writer must not block
        assert expected in _messages(err)[0], path


def test_size_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(ConfigInputError) as err:
        read_config_bytes(big)
    assert f"more than the {MAX_CONFIG_BYTES}-byte limit" in _messages(err)[0]
    ok = tmp_path / "ok.yaml"
    ok.write_bytes(b"a: 1\n" + b"#" * 1000)
    assert load_config_file(ok) == {"a": 1}
