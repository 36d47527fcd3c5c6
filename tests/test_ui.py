"""The web UI in headless Chromium, driven by Playwright, against a server on 127.0.0.1: live updates,
state diffs, the buttons, untrusted text that must stay text, the token; a screenshot of each page at
1280 px and at phone width lands in `test-artifacts/ui/`.

Needs Debian's `chromium` at /usr/bin/chromium and the `playwright` package (its own browser download
is never used). Without them the tests are skipped, unless CI is set: then they fail.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import httpx
import pytest

from tests.helpers_server import NEW_TICKET, app_server, mcp_client
from tests.servers import BUNDLED_SPECS, REPO

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts" / "ui"
WIDTHS = {"desktop": 1280, "phone": 390}
TOKEN = "browser-test-token"
# Would set the title and a window flag if it ever ran: tool arguments and results are untrusted text.
HOSTILE = "<script>document.title='pwned';window.__pwned=1</script><img src=x onerror=window.__pwned=2>"


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI needs the browser tests to run: {reason}")
    pytest.skip(reason)


def _chromium() -> str:
    if not CHROMIUM.exists():
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    return str(CHROMIUM)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    executable = _chromium()
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install playwright)")
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


async def open_page(browser: Browser, url: str, width: int = WIDTHS["desktop"]) -> Page:
    """A fresh browser context at `width`; script errors on the page fail the test."""
    context = await browser.new_context(viewport={"width": width, "height": 900})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("dialog", lambda dialog: dialog.accept())
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


def no_errors(page: Page) -> None:
    errors: list[str] = page.errors  # type: ignore[attr-defined]
    assert errors == [], errors


async def live(page: Page) -> None:
    """Wait until the page's event stream is connected."""
    from playwright.async_api import expect

    await expect(page.locator("#live")).to_have_attribute("data-state", "on")


async def screenshots(browser: Browser, url: str, name: str, *, ready: str = "main") -> None:
    """`url` at desktop and phone width, saved as test artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for label, width in WIDTHS.items():
        page = await open_page(browser, url, width)
        await page.wait_for_selector(ready)
        await page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
        overflow = await page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name} is {overflow} px wide at {width} px: it scrolls sideways"
        no_errors(page)
        await page.context.close()


async def call(base_url: str, session: str, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    async with mcp_client(f"{base_url}/mcp/tickets?session={session}", **kwargs) as client:
        return await client.call_tool(tool, arguments)


async def test_the_list_follows_calls_live(browser: Browser, base_url: str) -> None:
    from playwright.async_api import expect

    page = await open_page(browser, f"{base_url}/ui")
    await live(page)
    await page.evaluate("window.__samePage = true")
    row = page.locator('tr[data-id="live-list"]')
    await expect(row).to_have_count(0)
    async with mcp_client(f"{base_url}/mcp/tickets?session=live-list") as client:
        await client.call_tool("create_ticket", NEW_TICKET)
        await expect(row.locator('td[data-label="Calls"]')).to_have_text("1")
        await client.call_tool("get_ticket", {"ticket_id": "T-9999"})  # not found: an error
    await expect(row.locator('td[data-label="Calls"]')).to_have_text("2")
    await expect(row.locator('td[data-label="Errors"]')).to_have_text("1")
    await expect(row.locator('td[data-label="Environment"]')).to_have_text("tickets")
    await expect(row.locator('td[data-label="Reward"]')).to_have_text("—")
    await expect(page.locator("#session-rows tr").first).to_have_attribute("data-id", "live-list")  # newest first
    assert await page.evaluate("window.__samePage") is True, "the page reloaded"

    # Filters, without a reload: by text, then by environment.
    await page.fill("#filter-q", "live-li")
    await expect(page.locator("#session-rows tr:visible")).to_have_count(1)
    await page.select_option("#filter-env", "shop")
    await expect(page.locator("#session-rows tr:visible")).to_have_count(0)
    assert "env=shop" in page.url
    assert "q=live-li" in page.url
    await page.select_option("#filter-env", "")
    await page.fill("#filter-q", "")

    # A session deleted elsewhere leaves the list.
    async with httpx.AsyncClient(base_url=base_url) as http:
        assert (await http.delete("/sessions/live-list")).status_code == 204
    await expect(row).to_have_count(0)
    assert await page.evaluate("window.__samePage") is True
    no_errors(page)
    await call(base_url, "list-shot", "create_ticket", NEW_TICKET)
    await screenshots(browser, f"{base_url}/ui", "sessions", ready="#session-rows tr")


async def test_selecting_an_event_shows_its_state_diff(browser: Browser, base_url: str) -> None:
    from playwright.async_api import expect

    await call(base_url, "diff-ui", "create_ticket", NEW_TICKET)
    await call(base_url, "diff-ui", "close_ticket", {"ticket_id": "T-1001", "resolution": "Fixed"})
    page = await open_page(browser, f"{base_url}/ui/sessions/diff-ui")
    await expect(page.locator("#timeline li.event")).to_have_count(2)
    await expect(page.locator("#diff .hint")).to_contain_text("Select an event")

    await page.click("#event-2 a.event-head")
    await expect(page.locator("#diff .diff")).to_have_attribute("data-seq", "2")
    await expect(page.locator("#event-2")).to_have_class(re.compile(r"\bselected\b"))
    changed = page.locator("#diff .change-changed .path")
    await expect(changed).to_have_text(["/tickets/T-1001/status", "/tickets/T-1001/resolution"])
    await expect(page.locator("#state-view .line-old", has_text='"status": "open"')).to_have_count(1)
    await expect(page.locator("#state-view .line-new", has_text='"status": "closed"')).to_have_count(1)
    assert page.url.endswith("?event=2")

    await page.click("#event-1 a.event-head")
    await expect(page.locator("#diff .diff")).to_have_attribute("data-seq", "1")
    await expect(page.locator("#diff .change-added .path")).to_have_text(["/tickets/T-1006"])
    await expect(page.locator("#state-view .line-added").first).to_contain_text('"T-1006": {')
    no_errors(page)

    # A call made while the page is open joins the timeline without a reload.
    await live(page)
    await call(base_url, "diff-ui", "get_ticket", {"ticket_id": "T-1006"})
    await expect(page.locator("#timeline li.event")).to_have_count(3)
    await expect(page.locator("#stat-events")).to_have_text("3")
    await page.click("#event-3 a.event-head")
    await expect(page.locator("#diff .hint")).to_have_text("This event did not change the state.")
    no_errors(page)
    await screenshots(browser, f"{base_url}/ui/sessions/diff-ui?event=2", "session", ready="#state-view")


async def test_fork_from_the_page(browser: Browser, base_url: str) -> None:
    from playwright.async_api import expect

    await call(base_url, "fork-src", "create_ticket", NEW_TICKET)
    page = await open_page(browser, f"{base_url}/ui/sessions/fork-src")
    await page.click("#fork")
    await page.wait_for_url(re.compile(r"/ui/sessions/(?!fork-src)[^/?]+$"))
    fork_id = page.url.rsplit("/", 1)[1]
    await expect(page.locator("h1.session-id")).to_have_text(fork_id)
    await expect(page.locator("dd a", has_text="fork-src")).to_have_attribute("href", "/ui/sessions/fork-src")
    await expect(page.locator("#timeline li.event")).to_have_count(1)
    async with httpx.AsyncClient(base_url=base_url) as http:
        fork = (await http.get(f"/sessions/{fork_id}")).json()
    assert fork["forked_from"] == "fork-src"
    assert fork["events"] == 1

    # The fork lives on its own, and its page follows it.
    await live(page)
    async with mcp_client(fork["mcp_url"]) as client:
        await client.call_tool("get_ticket", {"ticket_id": "T-1006"})
    await expect(page.locator("#timeline li.event")).to_have_count(2)
    await page.goto(f"{base_url}/ui")
    await expect(page.locator(f'tr[data-id="{fork_id}"] .sub')).to_contain_text("fork of fork-src")
    await expect(page.locator('tr[data-id="fork-src"] td[data-label="Calls"]')).to_have_text("1")
    no_errors(page)


async def test_snapshot_reset_and_delete_from_the_page(browser: Browser, base_url: str) -> None:
    from playwright.async_api import expect

    await call(base_url, "buttons", "create_ticket", NEW_TICKET)
    page = await open_page(browser, f"{base_url}/ui/sessions/buttons")
    await page.fill("#snapshot-name", "after-create")
    await page.click("#snapshot-form button")
    await expect(page.locator("#flash")).to_contain_text("Snapshot after-create taken after 1 events")
    await expect(page.locator("#stat-snapshots")).to_have_text("after-create")

    await page.click("#reset-form button")  # to the creation state; the confirmation is accepted
    await expect(page.locator("#flash")).to_have_text("Reset to its creation state.")
    await expect(page.locator("#timeline li.event")).to_have_count(0)
    await expect(page.locator("#timeline-empty")).to_be_visible()
    await expect(page.locator("#stat-events")).to_have_text("0")

    await page.select_option("#reset-target", "after-create")
    await page.click("#reset-form button")
    await expect(page.locator("#timeline li.event")).to_have_count(1)

    await page.click("#delete")
    await page.wait_for_url(f"{base_url}/ui")
    await expect(page.locator('tr[data-id="buttons"]')).to_have_count(0)
    no_errors(page)


async def test_untrusted_text_shows_as_text_and_runs_nothing(browser: Browser, base_url: str) -> None:
    from playwright.async_api import expect

    result = await call(base_url, "hostile", "create_ticket", {**NEW_TICKET, "title": HOSTILE})
    assert HOSTILE in result.content[0].text  # the result itself holds the markup
    # Rendered by the server...
    page = await open_page(browser, f"{base_url}/ui/sessions/hostile?event=1")
    await expect(page.locator("#event-1 .event-body pre").first).to_contain_text(HOSTILE)
    await expect(page.locator("#state-view .line-added", has_text="<script>").first).to_be_visible()
    # ...built by the script as a call arrives...
    await live(page)
    await call(base_url, "hostile", "get_ticket", {"ticket_id": "T-1006"})
    await expect(page.locator("#event-2 .event-body pre").nth(1)).to_contain_text(HOSTILE)
    # ...and by the script from the diff endpoint.
    await call(base_url, "hostile", "update_ticket", {"ticket_id": "T-1001", "title": HOSTILE})
    await page.click("#event-3 a.event-head")
    await expect(page.locator("#diff .change-changed .after").first).to_contain_text("<script>")
    assert await page.locator("#main script, #main img").count() == 0
    assert await page.evaluate("window.__pwned") is None
    assert await page.title() == "hostile · sim-mcp"
    no_errors(page)


async def test_environments_with_tools_schemas_and_load_errors(browser: Browser, tmp_path: Path) -> None:
    from playwright.async_api import expect

    for name in ("tickets.yaml", "shop.yaml"):
        shutil.copy(BUNDLED_SPECS / name, tmp_path / name)
    (tmp_path / "broken.yaml").write_text("name: broken\ntools:\n  - name: x\n    input_schema: {type: string}\n")
    with app_server(specs=[tmp_path], watch=False) as url:
        page = await open_page(browser, f"{url}/ui/environments")
        errors = page.locator("#load-errors tbody tr")
        await expect(errors).to_have_count(1)
        await expect(errors.locator('td[data-label="File"]')).to_contain_text("broken.yaml")
        await expect(errors.locator('td[data-label="Where"]')).to_contain_text("tools[0].input_schema")
        tool = page.locator("#tool-tickets-create_ticket")
        await tool.locator("summary", has_text="Input schema").click()
        await expect(tool.locator("pre").first).to_contain_text('"customer_email"')
        env = page.locator("#env-tickets")
        await env.locator("summary", has_text="Initial state").click()
        await expect(env.locator("details pre").nth(1)).to_contain_text('"T-1001"')
        # Start a session from here: its page opens.
        await env.locator("button.new-session").click()
        await page.wait_for_url(re.compile(r"/ui/sessions/[^/]+$"))
        await expect(page.locator("#stat-events")).to_have_text("0")
        no_errors(page)
        await screenshots(browser, f"{url}/ui/environments", "environments", ready="#load-errors")


async def test_with_a_token_the_browser_signs_in_once(browser: Browser) -> None:
    from playwright.async_api import expect

    with app_server(token=TOKEN) as url:
        await screenshots(browser, f"{url}/ui/login", "login", ready="form")
        page = await open_page(browser, f"{url}/ui")
        await page.wait_for_url(re.compile(r"/ui/login\?next=%2Fui$"))
        await page.fill('input[name="token"]', "wrong")
        await page.click('button[type="submit"]')
        await expect(page.locator(".warning")).to_contain_text("not the server's token")
        page.errors.clear()  # type: ignore[attr-defined]  # the wrong token's 401, logged by the browser
        await page.fill('input[name="token"]', TOKEN)
        await page.click('button[type="submit"]')
        await page.wait_for_url(f"{url}/ui")
        await live(page)  # the event stream carries the cookie
        await call(url, "signed-in", "create_ticket", NEW_TICKET, token=TOKEN)
        await expect(page.locator('tr[data-id="signed-in"] td[data-label="Calls"]')).to_have_text("1")
        await page.click('tr[data-id="signed-in"] a')
        await page.click("#fork")  # a change through the control API, with the cookie and the UI's header
        await page.wait_for_url(re.compile(r"/ui/sessions/(?!signed-in)[^/?]+$"))
        await expect(page.locator("dd a", has_text="signed-in")).to_be_visible()
        no_errors(page)
        # A token in the link works too, and leaves the address bar.
        other = await open_page(browser, f"{url}/ui/environments?token={TOKEN}")
        assert other.url == f"{url}/ui/environments"
        await expect(other.locator("#env-tickets")).to_be_visible()
