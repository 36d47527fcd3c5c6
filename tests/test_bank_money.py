"""The bundled bank keeps money: over any sequence of transfers, through a real client, the sum of the
internal accounts' balances changes only by what left for external payees, and amounts finer than cents
are refused with the state untouched."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.registry import Catalog, load_catalog
from tests.fuzzing import FUZZ_EXAMPLES, fuzz_settings
from tests.servers import BUNDLED_SPECS

SESSION = "money"
ACCOUNTS = ["ACC-1001", "ACC-1002", "ACC-1003", "ACC-1004", "ACC-1005", "EXT-7700", "ACC-9999"]
# Whole cents mostly (up to 4,000.00, past some balances), and now and then thousandths, most not whole cents.
amounts = st.one_of(
    st.integers(min_value=1, max_value=400_000).map(lambda cents: Decimal(cents) / 100),
    st.integers(min_value=1, max_value=400_000).map(lambda mills: Decimal(mills) / 1000),
    st.integers(min_value=1, max_value=400_000).map(lambda cents: Decimal(cents) / 100),
)
transfers = st.lists(
    st.fixed_dictionaries(
        {
            "from_account_id": st.sampled_from(ACCOUNTS[:5]),
            "to_account_id": st.sampled_from(ACCOUNTS),
            "amount": amounts,
        },
        optional={"scheduled_for": st.sampled_from(["2025-03-14", "2025-04-01"])},
    ),
    min_size=1,
    max_size=8,
)


def _internal_total(state: dict[str, Any]) -> Decimal:
    return sum((Decimal(repr(account["balance"])) for account in state["accounts"].values()), Decimal(0))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(BUNDLED_SPECS)


# Each example is a whole session of up to eight calls: a quarter of the usual count keeps CI quick.
@settings(fuzz_settings, max_examples=max(FUZZ_EXAMPLES // 4, 5))
@given(sequence=transfers)
async def test_money_is_conserved_over_any_transfers(catalog: Catalog, sequence: list[dict[str, Any]]) -> None:
    initial = catalog.environments["bank"].initial_state
    async with Runtime(Settings(specs=[BUNDLED_SPECS], watch=False), catalog=catalog) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session=SESSION))
        left = Decimal(0)  # what went to external payees
        state = initial
        async with Client(server) as client:
            for transfer in sequence:
                arguments = {**transfer, "amount": float(transfer["amount"])}
                answer = await client.call_tool("create_transfer", arguments)
                record = await runtime.sessions.get(SESSION)
                assert record is not None
                after = runtime.simulator.world_of(record, "bank")
                fine = transfer["amount"] == transfer["amount"].quantize(Decimal("0.01"))
                if not fine:
                    assert answer.is_error
                    assert "more than two decimals" in answer.content[0].text  # type: ignore[union-attr]
                if answer.is_error:
                    event("refused")
                    assert json.dumps(after, sort_keys=True) == json.dumps(state, sort_keys=True)
                    continue
                made = answer.structured_content
                assert made is not None
                event(f"{made['status']} {'external' if made['to_account_id'].startswith('EXT-') else 'internal'}")
                if made["status"] == "completed" and made["to_account_id"].startswith("EXT-"):
                    left += Decimal(repr(made["amount"]))
                state = after
                assert _internal_total(state) == _internal_total(initial) - left, (transfer, made)
