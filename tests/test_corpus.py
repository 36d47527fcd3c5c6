"""Every third-party spec in the corpus loads, lists and answers one call per tool, through a real client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.schema_data import generate
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.registry import load_catalog
from tests.servers import CORPUS, CORPUS_MISSING, HAVE_CORPUS, corpus_cases

CORPUS_FILES = sorted(path for path in CORPUS.rglob("*") if path.suffix in (".json", ".yaml")) if HAVE_CORPUS else []


@pytest.mark.parametrize("path", corpus_cases(CORPUS_FILES, lambda path: path.name))
async def test_corpus_file_is_served_and_every_tool_answers(path: Path) -> None:
    catalog = load_catalog(path)
    assert catalog.errors == (), catalog.errors
    (environment,) = catalog.environments.values()
    async with Runtime(Settings(specs=[path]), catalog=catalog) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="corpus"))
        async with Client(server) as client:
            listed = await client.list_tools()
            assert [tool.name for tool in listed.tools] == [tool.name for tool in environment.tools]
            for tool in listed.tools:
                arguments = generate(tool.input_schema, tool.name)
                result = await client.call_tool(tool.name, arguments)
                # The SDK client has already checked structured content against the output schema.
                text = result.content[0].text  # type: ignore[union-attr]
                assert "could not produce a valid result" not in text
                assert "invalid arguments" not in text, text
                if tool.output_schema is not None and not result.is_error:
                    assert result.structured_content is not None


@pytest.mark.skipif(not HAVE_CORPUS, reason=CORPUS_MISSING)
async def test_whole_corpus_in_one_server_namespaces_shared_names() -> None:
    catalog = load_catalog(CORPUS)
    assert catalog.errors == ()
    shared = catalog.shared_tool_names()
    assert "addPet" in shared
    assert catalog.tool("oai_petstore-expanded__addPet") is not None
    assert catalog.tool("addPet", "swagger-petstore_openapi") is not None


@pytest.mark.skipif(not HAVE_CORPUS, reason=CORPUS_MISSING)
async def test_petstore_behaves_like_the_real_one() -> None:
    """The corpus notes: POST /pet then GET /pet/{petId} returns the same pet; after DELETE, GET is a 404."""
    spec = CORPUS / "openapi" / "swagger-petstore_openapi.yaml"
    async with Runtime(Settings(specs=[spec])) as runtime:
        call = runtime.simulator.call
        added = await call("s", "addPet", {"name": "Rex", "photoUrls": ["https://img.example/rex.png"]})
        assert not added.is_error
        pet_id = added.result["id"]
        fetched = await call("s", "getPetById", {"petId": pet_id})
        assert fetched.result == added.result
        renamed = await call("s", "updatePet", {"id": pet_id, "name": "Max", "photoUrls": []})
        assert renamed.result["name"] == "Max"
        assert (await call("s", "getPetById", {"petId": pet_id})).result["name"] == "Max"
        assert not (await call("s", "deletePet", {"petId": pet_id})).is_error
        gone = await call("s", "getPetById", {"petId": pet_id})
        assert gone.is_error
        assert gone.result["error"] == "not_found"
