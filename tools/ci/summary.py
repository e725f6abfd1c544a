"""The end of a CI run: one line per tier, from pytest's JUnit XML and validate_stacks' JSON summary,
never from scraped output.

Usage: python tools/ci/summary.py REPORTS_DIR
REPORTS_DIR holds ``<tier>.xml`` (pytest ``--junitxml``; a tier run in two pytest processes, as
tools/ci/e2e.sh runs the e2e tier, adds ``<tier>.<part>.xml``, and its counts are the sum), ``terraform.json``
(``GKE_ACCEL_VALIDATE_SUMMARY``) and ``times.tsv`` (``<tier>\\t<seconds>\\t<exit code>``, written by
.ci/run in the order the tiers ran). Prints e.g.

    unit: 1108 passed, 0 failed, 2 skipped (71 s)
    e2e: 71 passed, 0 failed, 0 skipped (212 s)
      google-api: 130 values at 21 fields of 6 stacks valid in google.golang.org/api@v0.316.0 (...); ...
    terraform: 3/3 stacks valid (google 8.0.0, helm 3.2.0, kubernetes 3.2.1); 9 helm releases validated and
    planned (95 s)      (one line)

Exit 1 when a tier failed, ran no tests, has no report, or (the e2e tier) skipped anything, or when the
terraform summary does not count the helm releases it validated (validate_stacks.py validates them with
the helm provider; an older summary that left them out fails); else 0.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

NO_SKIPS = ("e2e", "wheel")  # tiers where a skip is a failure: they run only what CI must prove
NO_REPORT = ("lint",)  # tiers judged by their exit code alone
# tier -> the JSON its check writes (.ci/run sets GKE_ACCEL_GOOGLE_API_SUMMARY): every value sent to
# GKE checked against Google's discovery documents and the provider schema (tests/google_api)
SUB_REPORTS = {"e2e": "google-api.json"}


@dataclass(frozen=True)
class Counts:
    tests: int
    failures: int
    errors: int
    skipped: int

    @property
    def passed(self) -> int:
        return self.tests - self.failures - self.errors - self.skipped


def junit_counts(path: Path) -> Counts:
    """Totals over every <testsuite> of a pytest JUnit XML file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = [0, 0, 0, 0]
    for suite in suites:
        for i, key in enumerate(("tests", "failures", "errors", "skipped")):
            total[i] += int(suite.get(key, "0"))
    return Counts(*total)


def tier_line(tier: str, reports: Path, seconds: int, rc: int) -> tuple[str, list[str]]:
    """(the tier's line, its problems)."""
    took = f"({seconds} s)"
    problems = [f"{tier}: exit {rc}"] if rc else []
    junit, terraform = reports / f"{tier}.xml", reports / f"{tier}.json"
    if junit.exists():
        c = junit_counts(junit)
        for part in sorted(reports.glob(f"{tier}.*.xml")):  # e.g. e2e.beside.xml (tools/ci/e2e.sh)
            more = junit_counts(part)
            c = Counts(c.tests + more.tests, c.failures + more.failures, c.errors + more.errors,
                       c.skipped + more.skipped)
        line = f"{tier}: {c.passed} passed, {c.failures + c.errors} failed, {c.skipped} skipped {took}"
        if c.tests == 0:
            problems.append(f"{tier}: no tests ran (pytest exit 5 or an empty selection)")
        if c.failures or c.errors:
            problems.append(f"{tier}: {c.failures} failed, {c.errors} errors")
        if c.skipped and tier in NO_SKIPS:
            problems.append(f"{tier}: {c.skipped} skipped; CI allows no skip in this tier")
        if tier in SUB_REPORTS:  # a check inside the tier that states what it proved, on its own line
            sub = reports / SUB_REPORTS[tier]
            if sub.exists():
                line += "\n  " + json.loads(sub.read_text())["line"]
            elif rc == 0:
                problems.append(f"{tier}: no {sub.name} (the Google-API check of tests/google_api did not pass)")
        return line, problems
    if terraform.exists():
        summary = json.loads(terraform.read_text())
        if summary["stacks"] == 0 or summary["valid"] < summary["stacks"]:
            problems.append(f"{tier}: {summary['valid']}/{summary['stacks']} stacks valid")
        if "helm_releases" not in summary:
            problems.append(f"{tier}: the summary does not count the helm releases validated (left out?)")
        return f"{summary['line']} {took}", problems
    if tier in NO_REPORT:
        return f"{tier}: {'ok' if rc == 0 else 'FAILED'} {took}", problems
    return f"{tier}: no report {took}", [*problems, f"{tier}: wrote no report"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    reports = Path(argv[0])
    times = reports / "times.tsv"
    rows = [line.split("\t") for line in times.read_text().splitlines() if line] if times.exists() else []
    problems: list[str] = []
    print("--- CI summary ---")
    for tier, seconds, rc in rows:
        line, bad = tier_line(tier, reports, int(seconds), int(rc))
        print(line)
        problems += bad
    print(f"total: {sum(int(s) for _, s, _ in rows)} s")
    for p in problems:
        print(f"CI FAILED: {p}", file=sys.stderr)
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
