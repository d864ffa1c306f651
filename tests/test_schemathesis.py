"""A bounded schemathesis run against the HTTP API's OpenAPI description (in-process ASGI).

Fails on any 5xx and on any answer that breaks the schema (status, content type, body,
headers; ``Allow`` on 405; invalid data rejected). The check that schema-valid data is
accepted is left out: a position is free text, and most text is not a position (400).
``schemathesis.toml`` counts 413 (a body over the route's limit) among the rejections of invalid data.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, settings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import positive_data_acceptance  # noqa: E402

from bot.doors.http_app import create_app  # noqa: E402
from bot.evaluation.evaluator import NetworkEvaluator  # noqa: E402
from bot.facade import Bot  # noqa: E402
from bot.evaluation.network import NetworkConfig  # noqa: E402
from training.torch_network import ValueNetwork  # noqa: E402

torch.manual_seed(4)
APP = create_app(Bot(NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))).eval())))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@pytest.mark.slow
def test_api_conforms_to_its_schema(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
