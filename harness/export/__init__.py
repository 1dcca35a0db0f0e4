"""`harness export`: a run handed to other tools (docs/export.md). One module per target:
`otel` (OpenTelemetry traces in the GenAI semantic conventions). The command is
harness/cli/export.py, which imports a target's module, and the libraries it needs, only when
that target is asked for."""
