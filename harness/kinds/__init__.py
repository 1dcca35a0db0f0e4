"""Suite kinds, one module each (`<kind>.py` defining `SPEC`, a `spec.KindSpec`), registered in
`registry.py` (docs/architecture.md, "Where a new suite kind goes"; outside packages: docs/plugins.md).
"""
