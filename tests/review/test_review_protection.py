"""What lifts or trips ``lifecycle.prevent_destroy`` (reliability findings D1, D9), on the shipped prod
config: Terraform plans nothing for a lifecycle change, yet losing it lifts the production guard rails;
and Terraform rejects any plan that destroys an object whose configuration keeps it ("Instance cannot be
destroyed", https://developer.hashicorp.com/terraform/language/meta-arguments/lifecycle#prevent_destroy)."""

from __future__ import annotations

from pathlib import Path

from gke_accel.review.compare import review_config_dirs
from gke_accel.review.model import Review
from gke_accel.review.render import summary_lines, to_json, to_markdown

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"

# stacks/environment_stack.py and cdk/cluster.py: in production the cluster, its Secrets key, every
# accelerator pool and the checkpoint bucket carry prevent_destroy; config/prod.yaml has 3 pools.
PROD_PROTECTED = {"ml-prod", "v5p-train", "h100-train", "t4-serve", "acme-ml-prod-prod-checkpoints"}


def review_prod(tmp_path: Path, edit: tuple[str, str]) -> Review:
    text = (CONFIG_DIR / "prod.yaml").read_text()
    assert edit[0] in text
    for side, body in (("base-config", text), ("head-config", text.replace(*edit, 1))):
        (tmp_path / side).mkdir()
        (tmp_path / side / "prod.yaml").write_text(body)
    return review_config_dirs(tmp_path / "base-config", tmp_path / "head-config", tmp_path)


def test_production_turned_off_is_a_safety_item_per_protection_lost(tmp_path: Path) -> None:
    r = review_prod(tmp_path, ("production: true", "production: false"))
    kinds = [i.kind for _, i in r.safety]
    assert kinds[0] == "production-off"
    assert kinds.count("prevent-destroy-lost") == 6  # 5 named above + the Secrets key (a KMS key)
    subjects = "\n".join(i.subject for _, i in r.safety)
    for name in PROD_PROTECTED:
        assert f"`{name}`" in subjects and "loses `lifecycle.prevent_destroy`" in subjects
    assert "google_kms_crypto_key" in subjects
    assert r.exit_code() == 2 and r.exit_code(fail_on_destroy=True) == 3
    markdown = to_markdown(r)
    assert "`production` turned off (true → false)" in markdown
    assert "leaves 6 resource(s)" in markdown
    # and the lifecycle posture falls back to GKE's defaults (docs/lifecycle.md): the training exclusion
    # goes, and the two training pools (v5p-train, h100-train) go back to rolling surge upgrades
    assert kinds.count("exclusion-removed") == 1 and kinds.count("training-pool-surge") == 2
    assert summary_lines(r)[0].endswith("; 10 safety warnings")
    assert '"safety": 10' in to_json(r)


def test_replacing_a_resource_that_keeps_prevent_destroy_says_the_plan_fails(tmp_path: Path) -> None:
    # t4-serve's gpus_per_node is node_config.guest_accelerator.count: ForceNew in the provider
    r = review_prod(tmp_path, ("gpus_per_node: 1\n", "gpus_per_node: 2\n"))
    items = [i for _, i in r.safety]
    refused = [i for i in items if i.kind == "plan-refused"]
    assert len(refused) == 1, items
    assert refused[0].subject.startswith(
        "this plan will fail: `t4-serve` (google_container_node_pool) has prevent_destroy"
    )
    assert "remove `prevent_destroy` in a separate, reviewed change first" in refused[0].instead
    assert not [i for i in items if i.kind == "prevent-destroy-lost"]
    assert r.exit_code(fail_on_destroy=True) == 3
