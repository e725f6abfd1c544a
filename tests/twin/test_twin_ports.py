"""The twin's loopback ports: from the kernel's ephemeral range by default, from $GKE_ACCEL_TWIN_PORTS
when set (so they stay out of a range another harness on the machine uses); a bad range is one line."""

from __future__ import annotations

import socket

import pytest

from gke_accel.twin import binaries
from gke_accel.twin.binaries import PORTS_ENV, PortRangeError, free_port, port_range


def _free_block(size: int) -> int:
    """The first port of ``size`` consecutive ports above 20000 that nothing listens on now."""
    for low in range(20000, 60000, size):
        ok = True
        for port in range(low, low + size):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return low
    raise AssertionError("no free block of ports")


def test_ports_come_from_the_range_set_and_are_never_handed_out_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    low = _free_block(16)
    monkeypatch.setenv(PORTS_ENV, f"{low}-{low + 15}")
    monkeypatch.setattr(binaries, "_taken", set())
    with socket.socket() as busy:  # one port of the range is taken by someone else: it is skipped
        busy.bind(("127.0.0.1", low + 3))
        busy.listen()
        ports = [free_port() for _ in range(15)]
        with pytest.raises(PortRangeError, match=f"no free port left in {low}-{low + 15}"):
            free_port()
    assert sorted(ports) == [p for p in range(low, low + 16) if p != low + 3]


def test_without_a_range_the_kernel_picks_outside_of_what_was_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PORTS_ENV, raising=False)
    ports = {free_port() for _ in range(5)}
    assert len(ports) == 5 and all(1024 <= p <= 65535 for p in ports)


@pytest.mark.parametrize("value", ["20000", "20000-19999", "80-2000", "20000-20010", "a-b", "20000-70000"])
def test_a_bad_range_is_one_line_naming_the_variable_and_what_is_valid(value: str) -> None:
    with pytest.raises(PortRangeError) as err:
        port_range(value)
    message = str(err.value)
    assert message.startswith(f"{PORTS_ENV}: {value!r} is not a port range; valid: LOW-HIGH") and "\n" not in message


def test_a_good_range_and_no_range() -> None:
    assert (port_range("20000-20015"), port_range(""), port_range("  ")) == ((20000, 20015), None, None)
