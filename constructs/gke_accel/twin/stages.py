"""The kwok Stage that completes a pod after the wall-clock seconds its ``gke-accel/run-seconds``
annotation carries, so jobs in the twin finish on their own.

kwok v0.8.0 (the version tools/k8s/build.sh builds) reads a stage's delay from the object:
``spec.delay.durationFrom.jq.expression`` is a JQ expression; a string result is parsed with Go's
``time.ParseDuration`` (sigs.k8s.io/kwok@v0.8.0 pkg/apis/v1alpha1/stage_types.go ``StageDelay``,
pkg/utils/lifecycle/value_duration_from.go), so ``"<seconds>s"`` ("90s", "1.5s") is the delay. The delay
starts when kwok sees the pod Running and Ready (the pod-ready stage just set it), and is counted again
if the pod object changes while it runs (nothing in the twin changes a Running pod). When several
stages match, kwok picks one at random in proportion to ``weight`` (pkg/utils/lifecycle/lifecycle.go
``Match``): this stage has weight 1 and kwok's own pod-complete (Job pods, at once) has 0, so an
annotated Job pod always waits its run time. The next state is kwok's own pod-complete status
(kustomize/stage/pod/fast/pod-complete.yaml): every container terminated with exit code 0, reason
Completed, phase Succeeded; here ``startedAt`` keeps the time the container started running, so
``finishedAt - startedAt`` is the run time (to the second: the API stores whole seconds).
A pod without the annotation is left Running until it is deleted.
"""

from __future__ import annotations

from typing import Any

RUN_SECONDS = "gke-accel/run-seconds"  # pod annotation: wall-clock seconds (a float) from Running to Succeeded
STAGE_NAME = "gke-accel-run-seconds"

_COMPLETED = """\
{{ $now := Now }}
{{ $root := . }}
containerStatuses:
{{ range $index, $item := .spec.containers }}
{{ $origin := index $root.status.containerStatuses $index }}
- image: {{ $item.image | Quote }}
  name: {{ $item.name | Quote }}
  ready: false
  restartCount: 0
  started: false
  state:
    terminated:
      exitCode: 0
      finishedAt: {{ $now | Quote }}
      reason: Completed
      startedAt: {{ with $origin.state.running }}{{ .startedAt | Quote }}{{ else }}{{ $now | Quote }}{{ end }}
{{ end }}
phase: Succeeded
"""


def run_seconds_stage() -> dict[str, Any]:
    """The Stage object (kwok.x-k8s.io/v1alpha1), to be written to a file given to ``kwok --config``."""
    annotation = f'.metadata.annotations["{RUN_SECONDS}"]'
    return {
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "Stage",
        "metadata": {"name": STAGE_NAME},
        "spec": {
            "resourceRef": {"apiGroup": "v1", "kind": "Pod"},
            "selector": {
                "matchExpressions": [
                    {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
                    {"key": ".status.phase", "operator": "In", "values": ["Running"]},
                    {
                        "key": '.status.conditions.[] | select( .type == "Ready" ) | .status',
                        "operator": "In",
                        "values": ["True"],
                    },
                    {"key": annotation, "operator": "Exists"},
                ]
            },
            "weight": 1,
            "delay": {"durationFrom": {"jq": {"expression": f'{annotation} + "s"'}}},
            "next": {"statusTemplate": _COMPLETED},
        },
    }
