"""harness/run/requests.py: which variants share a model client."""

from __future__ import annotations

from pathlib import Path

import yaml

from harness.run.plan import plan_variant
from harness.run.requests import case_request, clients_for
from harness.suites import load_suite

from ..conftest import write_project


def test_variants_asking_for_other_models_on_one_endpoint_each_send_their_own(tmp_path: Path) -> None:
    """A client builds every payload from its settings: shared across variants of different
    `model:`, it sent the first variant's model for all of them (the judged-helpdesk suite's
    `strong` variant, `model: gpt-4o`, was recorded asking gpt-4o-mini)."""
    path = write_project(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["variants"]["tuned"]["model"] = "gpt-4o"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    suite = load_suite(path)
    plans = {name: plan_variant(suite, name) for name in suite.variant_names()}
    clients = clients_for(plans, replay=True)
    sent = {name: case_request(plans[name], clients[name], suite.cases[0]).payload["model"] for name in plans}
    assert sent == {"default": "gpt-4o-mini", "tuned": "gpt-4o"}


def test_variants_with_the_same_settings_share_one_client(tmp_path: Path) -> None:
    """One client per endpoint and settings: its adaptive limit covers every call made to it."""
    suite = load_suite(write_project(tmp_path))
    plans = {name: plan_variant(suite, name) for name in suite.variant_names()}
    clients = clients_for(plans, replay=True)
    assert clients["default"] is clients["tuned"]
