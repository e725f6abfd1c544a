"""Read a config file (or the manifests ``lint`` reads) safely: a regular file, bounded in size,
UTF-8 (a leading byte-order mark is dropped: YAML allows it, Windows editors write it), YAML without
duplicate keys, without alias bombs and without self-referencing anchors.

Every problem becomes a ConfigIssue (the CLI exits 2); nothing here raises anything else.
Timestamps stay strings (``start_time: 2025-01-04T03:00:00Z`` unquoted is the text the user wrote),
so the model checks them as RFC 3339 itself.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model.core.errors import ConfigIssue

MAX_CONFIG_BYTES = 1024 * 1024  # 1 MiB: far above any real environment file (ours are ~2 KB)
MAX_VALUES = 100_000  # values after expanding aliases: stops "billion laughs" alias bombs
MAX_DEPTH = 64  # nesting of mappings and lists
# Manifests (``gke-accel lint``): 8 MiB holds some 30,000 Job documents; lint reads 2.6 MB of 10,000
# Jobs in about 30 s on 2 cores, so the cap keeps a run to minutes (docs/workloads.md)
MAX_MANIFEST_BYTES = 8 * 1024 * 1024


class ConfigInputError(Exception):
    """The file cannot become config data; carries every issue found."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        super().__init__("; ".join(f"{i.path}: {i.message}" for i in issues))
        self.issues = issues


def _fail(where: str, message: str, valid: str = "") -> ConfigInputError:
    return ConfigInputError([ConfigIssue(where, message, valid)])


def read_config_bytes(path: Path, limit: int = MAX_CONFIG_BYTES, what: str = "a config file") -> bytes:
    """The file's bytes, refusing directories, FIFOs, devices and sockets, and anything over ``limit``."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _fail("(file)", f"cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise _fail("(file)", "is a directory, not a config file", "a YAML file such as config/dev.yaml")
    if not stat.S_ISREG(info.st_mode):
        raise _fail("(file)", "is not a regular file (a FIFO, device or socket)", what)
    if info.st_size > limit:
        raise _fail("(file)", f"is {info.st_size} bytes, more than the {limit}-byte limit for {what}")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after stat, open must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _fail("(file)", f"cannot be read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _fail("(file)", "is not a regular file (a FIFO, device or socket)", what)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise _fail("(file)", "is a directory, not a config file") from None
        raise _fail("(file)", f"cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise _fail("(file)", f"is more than the {limit}-byte limit for {what}")
    return data


def read_limited_stream(stream: Any, limit: int, what: str) -> bytes:
    """At most ``limit`` bytes of a binary stream (stdin); more is the same error as a big file."""
    data: bytes = stream.read(limit + 1)
    if len(data) > limit:
        raise _fail("(file)", f"is more than the {limit}-byte limit for {what}")
    return data


def decode_config(data: bytes) -> str:
    """UTF-8 text, without a leading byte-order mark (YAML 1.2 section 5.2 allows one); any other
    encoding is a clear error."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _fail("(file)", "is UTF-16 text", "UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _fail(
            f"line {line}", f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}", "UTF-8 text"
        ) from None


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that records duplicate keys instead of letting the last one win."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[ConfigIssue] = []

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key (a list or mapping); the base class reports it
                continue
            line = key_node.start_mark.line + 1
            if first is not None:
                self.duplicates.append(
                    ConfigIssue(f"line {line}", f"repeats the key {_short(key)} (first at line {first})", "unique keys")
                )
            else:
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


# Keep timestamps as the text the user wrote; the model validates RFC 3339 itself.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text[:40] + "...") if len(text) > 40 else repr(text)


def _expanded_size(root: yaml.Node, max_values: int = MAX_VALUES) -> int:
    """Values the document holds once aliases are expanded (memoized, so it is linear in the
    node graph); raises on a self-referencing anchor, too deep nesting or too many values."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    aliased = False  # a node reached a second time: an alias

    def size(node: yaml.Node, depth: int) -> int:
        nonlocal aliased
        key = id(node)
        if key in sizes:
            aliased = True
            return sizes[key]
        if key in active:
            line = node.start_mark.line + 1
            raise _fail(f"line {line}", "is an anchor that contains an alias to itself", "no recursive aliases")
        if depth > MAX_DEPTH:
            raise _fail(f"line {node.start_mark.line + 1}", f"nests deeper than {MAX_DEPTH} levels")
        total = 1
        if isinstance(node, yaml.CollectionNode):
            active.add(key)
            children: list[yaml.Node] = []
            for item in node.value:
                children.extend(item if isinstance(item, tuple) else (item,))
            for child in children:
                total += size(child, depth + 1)
                if total > max_values and aliased:
                    raise _fail(
                        "(file)",
                        f"expands to more than {max_values} values through aliases (an alias bomb?)",
                        "fewer aliases",
                    )
                if total > max_values:
                    raise _fail(
                        "(file)", f"holds more than {max_values} values", f"at most {max_values} values in one document"
                    )
            active.discard(key)
        sizes[key] = total
        return total

    return size(root, 0)


_FLOW_CHARS = re.compile(r"[\[\]{}'\"#\n\\]")


def _flow_depth(text: str) -> int:
    """Deepest ``[``/``{`` nesting outside quotes and comments: a cheap bound checked before
    parsing, because PyYAML scans deeply nested flow collections slowly."""
    depth = deepest = 0
    quote = ""
    for match in _FLOW_CHARS.finditer(text):
        ch, at = match.group(), match.start()
        if quote:
            if (ch == quote and not (quote == '"' and at and text[at - 1] == "\\")) or (ch == "\n" and quote == "#"):
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (at == 0 or text[at - 1] in " \t\n"):
            quote = "#"
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                break
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def parse_config_text(text: str, *, max_values: int = MAX_VALUES) -> Any:
    """Parse one YAML document into plain data; every problem is a ConfigInputError. ``max_values``:
    the cap on values after alias expansion (a trace of 10,000 jobs holds more than a config)."""
    return _parse(text, multi=False, max_values=max_values)[0]


def parse_config_documents(text: str) -> list[Any]:
    """Every document of a multi-document YAML stream (``---``), each with the guards above (the
    alias and depth limits apply per document); every problem is a ConfigInputError."""
    return _parse(text, multi=True)


def _parse(text: str, *, multi: bool, max_values: int = MAX_VALUES) -> list[Any]:
    if _flow_depth(text) > MAX_DEPTH:
        raise _fail("(file)", f"nests deeper than {MAX_DEPTH} levels")
    try:
        loader = _StrictLoader(text)  # reads the stream: refuses control characters here
    except yaml.YAMLError as exc:
        raise _fail("(file)", f"is not valid YAML: {str(exc).splitlines()[0]}") from None
    documents: list[Any] = []
    try:
        if not multi:
            node = loader.get_single_node()
            nodes = iter([node])
        else:
            nodes = iter(lambda: loader.get_node() if loader.check_node() else None, None)
        for node in nodes:
            if node is None:
                documents.append(None)
                continue
            _expanded_size(node, max_values)
            documents.append(loader.construct_document(node))
    except ConfigInputError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _fail(where, f"is not valid YAML: {problem}") from None
    except RecursionError:
        raise _fail("(file)", f"nests deeper than {MAX_DEPTH} levels") from None
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _fail("(file)", f"is not valid YAML: {first[:200]}") from None
    finally:
        loader.dispose()
    if loader.duplicates:
        raise ConfigInputError(sorted(loader.duplicates, key=lambda i: int(i.path.split()[1])))
    return documents


def load_config_file(path: Path) -> Any:
    """Bytes -> text -> data, with every guard above."""
    return parse_config_text(decode_config(read_config_bytes(path)))
