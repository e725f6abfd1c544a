"""``gke-accel simulate``: a trace of jobs through the environment's twin (real Kueue and JobSet on a local
control plane) in compressed time, and what the queues made of it (utilization, waits, borrowing, lost work).

Modules: ``trace`` (the trace format), ``generate`` (seeded synthetic traces), ``objects`` (a trace job as the
Job or JobSet ``workload new`` makes), ``metrics`` (numbers from an event log), ``report`` (table, JSON, plot),
``policy`` (the ``static`` policy's ClusterQueues), ``api`` and ``runner`` (driving the twin).
"""
