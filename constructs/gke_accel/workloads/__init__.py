"""Tools for user workloads, built on the environment plan only (no jsii): ``lint`` (will it
schedule here, and why not), ``generate`` (``workload new``), ``size`` (how many chips) and
``verify`` (does the live cluster match the plan)."""
