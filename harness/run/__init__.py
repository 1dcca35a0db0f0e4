"""A run of a suite, one job a module: `plan` (a variant planned once), `requests` (a case's
requests built and hashed once, and the conversation that sends them), `cassette_paths` (where a
case's cassette lives), `evaluation` (a case's answers parsed and scored into its row),
`schedule` (which cases run where, resumed from which rows; the run's outcome), the forked
replay pool (`parallel_replay`), the cassette audit (`audit`) and batch recording (`batch`).

Import the module you need: this package re-exports nothing, so importing one module loads only
what that module imports.
"""
