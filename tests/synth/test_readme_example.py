"""The construct usage example (docs/constructs.md) runs as written and synthesizes what it promises."""

from __future__ import annotations

import json
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "constructs.md"


def readme_example(name: str) -> str:
    text = DOC.read_text()
    match = re.search(rf"<!-- docs-example: {name} -->\s*```python\n(.*?)```", text, re.S)
    assert match, f"docs/constructs.md has no example {name!r}"
    return match.group(1)


def test_construct_example_synthesizes_a_cluster_with_tpu_and_gpu_pools(tmp_path: Path) -> None:
    code = readme_example("constructs")
    assert len(code.strip().splitlines()) <= 16
    # The jsii Node process keeps the directory it started in, so the output folder is made absolute.
    code = code.replace('outdir="cdktf.out"', f'outdir="{tmp_path}/cdktf.out"')
    exec(compile(code, "docs/constructs.md", "exec"), {})
    doc = json.loads((tmp_path / "cdktf.out" / "stacks" / "research" / "cdk.tf.json").read_text())
    pools = {p["name"]: p for p in doc["resource"]["google_container_node_pool"].values()}
    assert set(pools) == {"system", "v5e", "h100"}
    assert pools["v5e"]["placement_policy"] == {"tpu_topology": "4x4", "type": "COMPACT"}
    assert pools["h100"]["node_config"]["machine_type"] == "a3-highgpu-8g"
