"""``gke-accel size`` against worked examples computed by hand (the arithmetic is in the comments).

Shape rule: L = round((P / (12 * 128^2))^(1/3)), h = 128 L.
  7e9 / 196608 = 35603.8; 33^3 = 35937 is nearest -> L = 33, h = 4224.
  7e10 / 196608 = 356038; 71^3 = 357911 is nearest -> L = 71, h = 9088.
"""

from __future__ import annotations

import pytest

from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.workloads.size.fit import catalog_options, environment_fits
from gke_accel.workloads.size.memory import GIB, estimate_memory, parse_params

ACT_7B = 2 * 4096 * 8 * 4224 * 33  # = 9_135_194_112 bytes of activations (context 4096, batch 8)


def by_accelerator(options: list) -> dict:  # type: ignore[type-arg]
    return {o.accelerator: o for o in options}


def test_parse_params() -> None:
    assert parse_params("7B") == 7e9
    assert parse_params("70e9") == 7e10
    assert parse_params("350M") == 3.5e8
    for bad in ("seven", "7X", "100"):
        with pytest.raises(ConfigError) as info:
            parse_params(bad)
        assert "--params" in info.value.render()


def test_7b_full_training_bf16_adamw() -> None:
    est = estimate_memory(7e9, "train", context=4096, batch=8)
    assert (est.layers, est.hidden) == (33, 4224)
    terms = {t.name: t.bytes for t in est.terms}
    assert terms == {
        "weights": 14e9,  # 7e9 x 2 bytes
        "gradients": 14e9,  # 7e9 x 2 bytes
        "optimizer": 84e9,  # 7e9 x 12 bytes (fp32 master + two Adam moments)
        "activations": ACT_7B,
    }
    assert est.total_bytes == 121_135_194_112
    # training plans on 75% of accelerator memory (JAX's default preallocation; was vLLM's 0.9)
    assert est.needed_bytes / GIB == pytest.approx(150.42, abs=0.01)  # 121_135_194_112 / 0.75 / 2^30
    opts = by_accelerator(catalog_options(est))
    # v5e: 16 GiB per chip -> 150.42 / 16 = 9.4 -> 10 chips -> 4x4 on four 4-chip VMs; 16 x $1.20 = $19.20/h
    assert (opts["v5e"].shape, opts["v5e"].machine_type, opts["v5e"].nodes) == (
        "4x4 (v5litepod-16)",
        "ct5lp-hightpu-4t",
        4,
    )
    assert opts["v5e"].hourly_on_demand == pytest.approx(19.20)
    assert opts["v5e"].monthly_on_demand == pytest.approx(19.20 * 730)
    # v5p: 95 GiB per chip -> 2 chips -> smallest v5p slice is 2x2x1 (4 chips, no 1-chip machine)
    assert (opts["v5p"].shape, opts["v5p"].chips) == ("2x2x1 (v5p-8)", 4)
    # H100 80 GiB -> 2 GPUs -> a3-highgpu-2g at $22.1225/h
    assert (opts["nvidia-h100-80gb"].machine_type, opts["nvidia-h100-80gb"].chips) == ("a3-highgpu-2g", 2)
    assert opts["nvidia-h100-80gb"].hourly_on_demand == pytest.approx(22.1225)
    # L4 24 GiB -> 150.42 / 24 = 6.3 -> 7 GPUs -> counts 1, 2, 4, 8 per machine -> 8 (g2-standard-96)
    assert (opts["nvidia-l4"].machine_type, opts["nvidia-l4"].chips) == ("g2-standard-96", 8)
    # tpu7x has no list price: shown, not invented
    assert opts["tpu7x"].hourly_on_demand is None


def test_70b_serving_int8() -> None:
    est = estimate_memory(70e9, "serve", precision="int8", context=8192, batch=1)
    assert (est.layers, est.hidden) == (71, 9088)
    terms = {t.name: t.bytes for t in est.terms}
    assert terms["weights"] == 70e9  # 1 byte per int8 weight
    assert terms["kv cache"] == 2 * 71 * 9088 * 8192 * 1 * 2  # K and V, bf16 cache = 21_143_486_464
    assert est.needed_bytes / GIB == pytest.approx(94.31, abs=0.01)  # 91_143_486_464 / 0.9
    opts = by_accelerator(catalog_options(est))
    assert opts["nvidia-h100-80gb"].chips == 2  # 94.3 / 80 -> 2
    assert opts["v6e"].shape == "2x2 (v6e-4)"  # 94.3 / 32 -> 3 chips -> 2x2
    assert opts["v5e"].shape == "2x4 (v5litepod-8)"  # 94.3 / 16 -> 6 chips -> 2x4


def test_7b_lora_finetune() -> None:
    est = estimate_memory(7e9, "finetune", context=4096, batch=8)
    terms = {t.name: t.bytes for t in est.terms}
    # 1% trainable: 7e7 x 2 bytes of gradients, 7e7 x 12 bytes of optimizer state
    assert terms["gradients"] == pytest.approx(1.4e8)
    assert terms["optimizer"] == pytest.approx(8.4e8)
    assert est.total_bytes == pytest.approx(14e9 + 1.4e8 + 8.4e8 + ACT_7B)
    opts = by_accelerator(catalog_options(est))
    assert opts["nvidia-l4"].chips == 2  # 24.95 GiB / 24 -> 2 GPUs
    assert opts["v5e"].shape == "2x2 (v5litepod-4)"  # 24.95 / 16 -> 2 chips -> 2x2


def test_environment_pools_that_fit(env: EnvironmentPlan) -> None:
    # 7B serving, bf16, context 4096, batch 8: 14e9 + KV 2 x 33 x 4224 x 4096 x 8 x 2 = 18_270_388_224
    est = estimate_memory(7e9, "serve", context=4096, batch=8)
    assert est.needed_bytes / GIB == pytest.approx(33.39, abs=0.01)
    fits = {f.pool: f for f in environment_fits(est, env)}
    assert fits["v5e"].verdict == "fits in one slice"  # 4 x 16 = 64 GiB
    assert fits["v5e-mh"].verdict == "fits in one slice"  # 8 x 16 = 128 GiB
    assert fits["l4"].verdict == "fits in 2 nodes (model-parallel across them)"  # 24 GiB per node, max 2
    assert fits["l4x2"].verdict == "fits in one node"  # 48 GiB
    big = estimate_memory(70e9, "train")
    fits = {f.pool: f for f in environment_fits(big, env)}
    assert not fits["v5e"].fits and fits["v5e"].verdict.startswith("too small: a single-host 2x2 slice holds 64 GiB")


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"task": "train", "precision": "int8"}, "--precision: 'int8' is not used to train; valid: bf16, fp8"),
        ({"task": "deploy"}, "--task: 'deploy' is not a task"),
        ({"task": "train", "optimizer": "lion"}, "--optimizer: 'lion' is not a known optimizer"),
        ({"task": "serve", "context": 0}, "--context: 0 is out of range"),
    ],
)
def test_bad_arguments_name_the_flag(kwargs: dict, text: str) -> None:  # type: ignore[type-arg]
    task = kwargs.pop("task")
    with pytest.raises(ConfigError) as info:
        estimate_memory(7e9, task, **kwargs)
    assert text in info.value.render()


def test_accepted_arguments() -> None:
    assert estimate_memory(7e9, "serve", precision="int4").terms[0].bytes == 3.5e9
    assert estimate_memory(7e9, "train", precision="fp8", optimizer="sgd-momentum").terms[2].bytes == 7e9 * 8


# Published reference points (expected values from the sources named, not from the formula).


def test_model_states_match_the_zero_paper() -> None:
    # Rajbhandari et al., ZeRO (SC 2020) sec. 3.1: mixed-precision Adam needs 16 bytes per parameter,
    # "a 7.5B parameter model ... requires 120 GB" of model states.
    est = estimate_memory(7.5e9, "train", context=1, batch=1)
    terms = {t.name: t.bytes for t in est.terms}
    assert terms["weights"] + terms["gradients"] + terms["optimizer"] == pytest.approx(120e9)


def test_llama_2_7b_kv_cache_is_half_a_mib_per_token() -> None:
    # Llama-2-7B (multi-head attention, 32 layers x 4096): 2 x 32 x 4096 x 2 B = 0.5 MiB per token in
    # bf16, the figure vLLM's PagedAttention paper and NVIDIA's inference-optimization blog quote.
    est = estimate_memory(6.74e9, "serve", context=1, batch=1, model="llama-2-7b")
    assert {t.name: t.bytes for t in est.terms}["kv cache"] == 0.5 * 2**20


def test_llama_3_70b_grouped_query_attention_kv_cache() -> None:
    # Llama-3-70B config.json: 80 layers, 8 KV heads of 128: 2 x 80 x 8 x 128 x 2 B = 320 KiB per token
    # (code review C6: about 0.31 MiB; 8192 tokens -> 2.5 GiB, not the 21 GB MHA bound).
    est = estimate_memory(70.6e9, "serve", precision="int8", context=8192, batch=1, model="llama-3-70b")
    kv = {t.name: t.bytes for t in est.terms}["kv cache"]
    assert kv / 8192 == 320 * 1024
    assert kv / GIB == pytest.approx(2.5)


def test_fp8_training_keeps_bf16_weights_and_gradients() -> None:
    # NVIDIA Transformer Engine FP8 recipe: fp8 matmul inputs, higher-precision weights and gradients.
    est = estimate_memory(7e9, "train", precision="fp8", context=1, batch=1)
    terms = {t.name: t.bytes for t in est.terms}
    assert (terms["weights"], terms["gradients"]) == (14e9, 14e9)


def test_unknown_model_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        estimate_memory(7e9, "serve", model="llama-9")
    assert "llama-3-8b" in info.value.render()
