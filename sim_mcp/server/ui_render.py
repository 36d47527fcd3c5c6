"""The web UI's HTML, written as Python strings: every value from a session or a spec goes through
`_e` (html.escape, quotes included), so nothing a tool call returns can become markup or script.

The pages carry their data for the scripts in `data-` attributes only (no inline script), and the
scripts (`ui_static/app.js`) build what they add with `textContent`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any, Required, TypedDict
from urllib.parse import quote, urlencode

from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.text import shorten

# Event fields shown in an event's header line; every other field is shown in its body, by name, when set
# (a field that is null, such as `end` of a call, is not shown).
EVENT_HEAD_FIELDS = frozenset(
    {"seq", "at", "kind", "environment", "tool", "is_error", "state_patch", "backend", "latency_ms", "tokens", "note"}
    | {"fault", "failed", "fallback"}
)
# Fields of an event that are shown even when empty: no arguments and no result say something about a call.
EVENT_ALWAYS_SHOWN = frozenset({"arguments", "result"})
# Longest JSON text shown for one value (arguments, a result) before it is cut.
MAX_VALUE_CHARS = 20_000
# The "(unbound)" choice of the environment filter: not a valid environment name.
NO_ENVIRONMENT = "(none)"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True)
class Assets:
    """URLs of the static files, with a content hash so that a new version is never served from cache."""

    script: str
    style: str


class PageOptions(TypedDict, total=False):
    """How a page is shown besides its title and body (see `page`)."""

    name: Required[str]
    nav: str | None
    data: Mapping[str, str] | None
    live: bool


def page(
    title: str,
    body: str,
    assets: Assets,
    *,
    name: str,
    nav: str | None = None,
    data: Mapping[str, str] | None = None,
    live: bool = False,
) -> str:
    """A whole HTML document: head, top bar and `body` (already HTML)."""
    attributes = "".join(f' data-{_e(key)}="{_e(value)}"' for key, value in (data or {}).items())
    links = [("sessions", "/ui", "Sessions"), ("environments", "/ui/environments", "Environments")]
    nav_html = "".join(
        f'<a href="{href}"{" aria-current=page" if key == nav else ""}>{label}</a>' for key, href, label in links
    )
    live_html = '<span id="live" class="live" data-state="connecting">connecting</span>' if live else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        '<link rel="icon" href="data:,">'
        f"<title>{_e(title)} · sim-mcp</title>"
        f'<link rel="stylesheet" href="{_e(assets.style)}">'
        f'<script src="{_e(assets.script)}" defer></script>'
        f'</head><body data-page="{_e(name)}"{attributes}>'
        f'<header class="top"><a class="brand" href="/ui">sim-mcp</a><nav>{nav_html}</nav>{live_html}</header>'
        f'<main id="main">{body}</main></body></html>\n'
    )


# ---------------------------------------------------------------------------------------------------- values


def json_text(value: Any, *, indent: int | None = 2, limit: int = MAX_VALUE_CHARS) -> str:
    """`value` as JSON text for display, cut at `limit` characters (saying how much was left out)."""
    return shorten(json.dumps(value, indent=indent, ensure_ascii=False, default=str), limit, separator="\n")


def ago(seconds: float) -> str:
    """A duration, short: `12 s`, `3 min`, `2 h`, `4 d`."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _time(timestamp: Any, mode: str, now: float) -> str:
    """A `<time>` the scripts keep current: `mode` "age" (a duration) or "ago" (how long ago)."""
    if not isinstance(timestamp, int | float):
        return "—"
    text = ago(now - timestamp) + (" ago" if mode == "ago" else "")
    stamp = iso(timestamp)
    return f'<time datetime="{_e(stamp)}" title="{_e(stamp)}" data-ts="{timestamp}" data-rel="{mode}">{_e(text)}</time>'


def reward_of(summary: Mapping[str, Any]) -> float | None:
    """The session's reward when it was evaluated: `reward`, or `evaluation.reward`."""
    reward = summary.get("reward")
    evaluation = summary.get("evaluation")
    if reward is None and isinstance(evaluation, Mapping):
        reward = evaluation.get("reward")
    return float(reward) if isinstance(reward, int | float) and not isinstance(reward, bool) else None


def reward_text(summary: Mapping[str, Any]) -> str:
    reward = reward_of(summary)
    return "—" if reward is None else f"{reward:.3g}"


def tokens_text(tokens: Any) -> str:
    if not isinstance(tokens, Mapping):
        return "—"
    total = int(tokens.get("input", 0) or 0) + int(tokens.get("output", 0) or 0)
    return f"{total:,}"


def tokens_title(tokens: Any) -> str:
    if not isinstance(tokens, Mapping):
        return ""
    return f"input {tokens.get('input', 0):,} · output {tokens.get('output', 0):,} · cached {tokens.get('cached', 0):,}"


def session_href(session_id: str) -> str:
    return f"/ui/sessions/{quote(session_id, safe='')}"


# ---------------------------------------------------------------------------------------------------- sessions


def sessions_body(
    summaries: Sequence[Mapping[str, Any]],
    *,
    environments: Iterable[str],
    env_filter: str,
    text_filter: str,
    total: int,
    cap: int,
    now: float,
) -> str:
    """The list of sessions (newest activity first), with its filters."""
    options = [("", "all environments"), *((name, name) for name in environments), (NO_ENVIRONMENT, "(unbound)")]
    select = "".join(
        f'<option value="{_e(value)}"{" selected" if value == env_filter else ""}>{_e(label)}</option>'
        for value, label in options
    )
    rows = "".join(session_row(summary, now) for summary in summaries[:cap])
    shown = min(len(summaries), cap)
    cap_note = (
        f'<p class="note" id="cap-note">Showing the {shown:,} most recently used of {len(summaries):,} matching '
        "sessions; filter to narrow.</p>"
        if len(summaries) > cap
        else '<p class="note" id="cap-note" hidden></p>'
    )
    empty = (
        '<p class="empty" id="sessions-empty"'
        + (" hidden" if summaries else "")
        + ">No sessions here yet. Any MCP client that calls a tool on <code>/mcp</code> opens one, and so does "
        "<code>POST /sessions</code>; they show up here as they come.</p>"
    )
    return (
        '<section class="toolbar">'
        f'<h1>Sessions <span class="count" id="session-count" data-total="{total}">{total:,}</span></h1>'
        '<form class="filters" method="get" action="/ui" role="search">'
        f'<label>Environment <select name="env" id="filter-env">{select}</select></label>'
        f'<label>Search <input type="search" name="q" id="filter-q" value="{_e(text_filter)}" '
        'placeholder="id, environment, task…" autocomplete="off"></label>'
        '<button type="submit">Filter</button></form></section>'
        f"{cap_note}"
        f'<table class="sessions" id="sessions" data-cap="{cap}"><thead><tr>'
        "<th>Session</th><th>Environment</th><th>Age</th><th>Last activity</th>"
        '<th class="num">Calls</th><th class="num">Errors</th><th class="num">Tokens</th><th class="num">Reward</th>'
        f'</tr></thead><tbody id="session-rows">{rows}</tbody></table>'
        f"{empty}"
    )


def session_search_text(summary: Mapping[str, Any]) -> str:
    """What the text filter searches: the id, the environment, the session it was forked from, its task."""
    parts = [summary.get("id"), summary.get("env"), summary.get("forked_from"), summary.get("task")]
    return " ".join(str(part) for part in parts if part).lower()


def session_row(summary: Mapping[str, Any], now: float) -> str:
    session_id = str(summary.get("id", ""))
    env = summary.get("env")
    forked = summary.get("forked_from")
    fork_note = (
        f'<span class="sub">fork of <a href="{_e(session_href(str(forked)))}">{_e(forked)}</a></span>' if forked else ""
    )
    errors = int(summary.get("errors", 0) or 0)
    tokens = summary.get("tokens")
    return (
        f'<tr data-id="{_e(session_id)}" data-env="{_e(env if env is not None else NO_ENVIRONMENT)}" '
        f'data-search="{_e(session_search_text(summary))}" data-last="{_e(summary.get("last_used_at", 0))}">'
        f'<td data-label="Session" class="id"><a href="{_e(session_href(session_id))}">{_e(session_id)}</a>'
        f"{fork_note}</td>"
        f'<td data-label="Environment">{environment_html(summary)}</td>'
        f'<td data-label="Age">{_time(summary.get("created_at"), "age", now)}</td>'
        f'<td data-label="Last activity">{_time(summary.get("last_used_at"), "ago", now)}</td>'
        f'<td data-label="Calls" class="num">{int(summary.get("events", 0) or 0):,}</td>'
        f'<td data-label="Errors" class="num{" bad" if errors else ""}">{errors:,}</td>'
        f'<td data-label="Tokens" class="num" title="{_e(tokens_title(tokens))}">{_e(tokens_text(tokens))}</td>'
        f'<td data-label="Reward" class="num">{_e(reward_text(summary))}</td>'
        "</tr>"
    )


# ---------------------------------------------------------------------------------------------------- one session


def session_body(
    summary: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    *,
    total_events: int,
    selected: Mapping[str, Any] | None,
    now: float,
) -> str:
    """One session: its figures, the actions, its timeline and the state diff of the selected event."""
    session_id = str(summary.get("id", ""))
    stats_html = "".join(
        f"<div><dt>{label}</dt><dd{f' id={key}' if key else ''}>{value}</dd></div>"
        for label, value, key in _session_stats(summary, now)
    )
    cards = "".join(
        event_card(event, selected=selected is not None and event.get("seq") == selected.get("seq")) for event in events
    )
    shown_note = (
        f'<p class="note">Showing the last {len(events):,} of {total_events:,} events.</p>'
        if total_events > len(events)
        else ""
    )
    diff_html = (
        diff_body(selected)
        if selected is not None
        else '<p class="hint">Select an event to see the world state after it, against the state before it.</p>'
    )
    return (
        f'<nav class="crumbs"><a href="/ui">Sessions</a> <span aria-hidden="true">/</span> {_e(session_id)}</nav>'
        '<section class="session-head">'
        f'<h1 class="session-id">{_e(session_id)}</h1>'
        '<p id="gone" class="banner" hidden>This session was deleted.</p>'
        f'<dl class="stats">{stats_html}</dl>'
        f'<p class="mcp-url"><span>MCP URL</span> <code id="mcp-url">{_e(summary.get("mcp_url", ""))}</code></p>'
        f"{_session_actions(session_id, [str(name) for name in summary.get('snapshots', [])])}"
        '<p id="flash" class="flash" role="status" hidden></p>'
        "</section>"
        '<div class="session-body">'
        '<section class="timeline-panel">'
        f'<h2>Timeline <span class="count" id="timeline-count">{total_events:,}</span></h2>'
        f"{shown_note}"
        f'<ol id="timeline" class="timeline">{cards}</ol>'
        f'<p class="empty" id="timeline-empty"{" hidden" if events else ""}>No events yet: calls to this '
        "session show up here as they are made.</p>"
        "</section>"
        '<section class="diff-panel" id="diff-panel" aria-live="polite">'
        f'<h2>State</h2><div id="diff">{diff_html}</div>'
        "</section></div>"
    )


def _session_stats(summary: Mapping[str, Any], now: float) -> list[tuple[str, str, str]]:
    """(label, HTML value, element id) of each figure of a session."""
    forked = summary.get("forked_from")
    snapshots = [str(name) for name in summary.get("snapshots", [])]
    tokens = summary.get("tokens")
    stats = [
        ("Environment", environment_html(summary), ""),
        ("Seed", _e(summary.get("seed", "")), ""),
        ("Created", _time(summary.get("created_at"), "ago", now), ""),
        ("Last activity", _time(summary.get("last_used_at"), "ago", now), "stat-last"),
        ("Calls", f"{int(summary.get('events', 0) or 0):,}", "stat-events"),
        ("Errors", f"{int(summary.get('errors', 0) or 0):,}", "stat-errors"),
        ("Tokens", f'<span title="{_e(tokens_title(tokens))}">{_e(tokens_text(tokens))}</span>', "stat-tokens"),
        ("Reward", _e(reward_text(summary)), "stat-reward"),
        ("Snapshots", _e(", ".join(snapshots) or "—"), "stat-snapshots"),
    ]
    if forked:
        stats.append(("Forked from", f'<a href="{_e(session_href(str(forked)))}">{_e(forked)}</a>', ""))
    if summary.get("task"):
        stats.append(("Task", _e(summary["task"]), ""))
    return stats


def _session_actions(session_id: str, snapshots: list[str]) -> str:
    """Reset (to the creation state or a snapshot), snapshot, fork, the trajectory downloads, delete."""
    snapshot_options = "".join(f'<option value="{_e(name)}">snapshot {_e(name)}</option>' for name in snapshots)
    quoted = quote(session_id, safe="")
    downloads = "".join(
        f'<a class="button" href="/sessions/{_e(quoted)}/trajectory?{urlencode({"format": fmt})}" '
        f'download="{_e(session_id)}.{fmt}.jsonl">{label}</a>'
        for fmt, label in (("events", "Trajectory (events)"), ("openai", "Trajectory (OpenAI)"))
    )
    return (
        '<div class="actions">'
        '<form id="reset-form" class="inline">'
        f'<select id="reset-target" aria-label="Reset to"><option value="">creation state</option>{snapshot_options}'
        '</select><button type="submit">Reset</button></form>'
        '<form id="snapshot-form" class="inline">'
        '<input id="snapshot-name" name="name" required maxlength="128" placeholder="snapshot name" '
        'aria-label="Snapshot name" autocomplete="off"><button type="submit">Snapshot</button></form>'
        '<button type="button" id="fork">Fork</button>'
        f"{downloads}"
        '<button type="button" id="delete" class="danger">Delete</button>'
        "</div>"
    )


def event_card(event: Mapping[str, Any], *, selected: bool = False) -> str:
    """One event of the timeline: a tool call, or any other kind of event, shown field by field."""
    seq = event.get("seq")
    kind = str(event.get("kind") or "tool_call")
    tool = event.get("tool")
    classes = ["event", f"kind-{kind}" if kind.replace("_", "").isalnum() else "kind-other"]
    if event.get("is_error"):
        classes.append("error")
    if selected:
        classes.append("selected")
    badges = []
    if event.get("environment"):
        badges.append(f'<span class="badge env">{_e(event["environment"])}</span>')
    if kind != "tool_call":
        badges.append(f'<span class="badge kind">{_e(kind)}</span>')
    if event.get("is_error"):
        badges.append('<span class="badge error">error</span>')
    if event.get("fault"):
        badges.append(f'<span class="badge fault">fault: {_e(event["fault"])}</span>')
    if event.get("failed"):
        badges.append('<span class="badge fault" title="no valid outcome: nothing was applied">not applied</span>')
    if event.get("fallback"):
        title = "program mode gave no valid answer; the last attempt was asked in patch mode"
        badges.append(f'<span class="badge kind" title="{title}">patch fallback</span>')
    meta = [_event_time(event.get("at"))]
    if isinstance(event.get("latency_ms"), int | float):
        meta.append(f"{event['latency_ms']:,.0f} ms")
    if isinstance(event.get("tokens"), Mapping):
        meta.append(f'<span title="{_e(tokens_title(event["tokens"]))}">{_e(tokens_text(event["tokens"]))} tok</span>')
    if event.get("backend"):
        meta.append(_e(event["backend"]))
    fields = "".join(
        f'<div class="field"><span class="label">{_e(name)}</span><pre>{_e(_shown(value))}</pre></div>'
        for name, value in event.items()
        if name not in EVENT_HEAD_FIELDS and (name in EVENT_ALWAYS_SHOWN or not _empty(value))
    )
    note = f'<p class="event-note">{_e(event["note"])}</p>' if event.get("note") else ""
    title = _e(tool) if tool else _e(kind)
    at = event.get("at")
    at_attribute = f' data-at="{_e(at)}"' if isinstance(at, int | float) else ""
    return (
        f'<li class="{" ".join(classes)}" data-seq="{_e(seq)}" id="event-{_e(seq)}"{at_attribute}>'
        f'<a class="event-head" href="?{urlencode({"event": seq})}#diff-panel" data-seq="{_e(seq)}">'
        f'<span class="seq">#{_e(seq)}</span> <span class="tool">{title}</span> {" ".join(badges)}'
        f'<span class="meta">{" · ".join(meta)}</span></a>'
        f'<div class="event-body">{fields}{note}</div></li>'
    )


def _empty(value: Any) -> bool:
    """Nothing to show: no value, or an empty list, object or text (no rejected answers, no warnings)."""
    return value is None or value == [] or value == {} or value == ""


def environment_html(summary: Mapping[str, Any]) -> str:
    """A session's environment: the one it is bound to; else the ones it holds state in (a session named in
    the URL of `/mcp`, whose calls may go to any environment), marked unbound; else "(unbound)"."""
    env = summary.get("env")
    if env is not None:
        return _e(env)
    worlds = [str(name) for name in summary.get("worlds") or []]
    if worlds:
        return f'{_e(", ".join(worlds))} <span class="sub">(unbound)</span>'
    return '<span class="sub">(unbound)</span>'


def _shown(value: Any) -> str:
    """A field's value for display: strings as they are (messages), anything else as JSON."""
    if isinstance(value, str):
        return shorten(value, MAX_VALUE_CHARS)
    return json_text(value)


def _event_time(timestamp: Any) -> str:
    if not isinstance(timestamp, int | float):
        return ""
    stamp = iso(timestamp)
    return f'<time datetime="{_e(stamp)}" title="{_e(stamp)}">{_e(stamp[11:])}</time>'


def diff_body(view: Mapping[str, Any]) -> str:
    """The state after one event against the state before it (`ui.diff_view` builds `view`)."""
    title = view.get("tool") or view.get("kind") or "event"
    where = f" · {_e(view['environment'])}" if view.get("environment") else ""
    parts = [f'<h3>After <span class="seq">#{_e(view.get("seq"))}</span> {_e(title)}{where}</h3>']
    if view.get("error"):
        parts.append(f'<p class="warning">{_e(view["error"])}</p>')
    if view.get("warning"):
        parts.append(f'<p class="warning">{_e(view["warning"])}</p>')
    if view.get("message"):
        parts.append(f'<p class="hint">{_e(view["message"])}</p>')
    changes = view.get("changes") or []
    if changes:
        items = "".join(
            f'<li class="change change-{_e(change["kind"])}" data-path="{_e(change["path"])}">'
            f'<span class="kind">{_e(change["kind"])}</span> '
            f'<code class="path">{_e(change["path"] or "/")}</code>'
            + (f' <code class="before">{_e(change["before"])}</code>' if change.get("before") is not None else "")
            + (" →" if change.get("before") is not None and change.get("after") is not None else "")
            + (f' <code class="after">{_e(change["after"])}</code>' if change.get("after") is not None else "")
            + "</li>"
            for change in changes
        )
        parts.append(f'<ul class="changes">{items}</ul>')
    elif view.get("environment") and not view.get("error"):
        parts.append('<p class="hint">This event did not change the state.</p>')
    lines = view.get("lines") or []
    if lines:
        rows = "".join(
            f'<span class="line line-{_e(line["mark"])}" data-path="{_e(line["path"])}">{_e(line["text"])}</span>'
            for line in lines
        )
        parts.append(
            '<p class="legend"><span class="line-added">added</span> <span class="line-new">changed</span> '
            '<span class="line-old">was</span> <span class="line-removed">removed</span></p>'
            f'<pre class="state" id="state-view">{rows}</pre>'
        )
    if view.get("skipped"):
        parts.append(f'<p class="note">{int(view["skipped"]):,} more lines not shown.</p>')
    if view.get("patch"):
        patch = _e(view["patch"])
        parts.append(f'<details class="patch"><summary>Patch (RFC 6902)</summary><pre>{patch}</pre></details>')
    return f'<div class="diff" data-seq="{_e(view.get("seq"))}">{"".join(parts)}</div>'


# ---------------------------------------------------------------------------------------------------- environments


@dataclass(frozen=True)
class LoadErrorView:
    file: str
    place: str
    fault: str


def environments_body(environments: Sequence[Environment], errors: Sequence[LoadErrorView]) -> str:
    parts = [f'<section class="toolbar"><h1>Environments <span class="count">{len(environments)}</span></h1></section>']
    if errors:
        rows = "".join(
            f'<tr><td data-label="File"><code>{_e(error.file)}</code></td>'
            f'<td data-label="Where"><code>{_e(error.place or "—")}</code></td>'
            f'<td data-label="Fault">{_e(error.fault)}</td></tr>'
            for error in errors
        )
        parts.append(
            f'<section class="load-errors" id="load-errors"><h2>Files that failed to load ({len(errors)})</h2>'
            '<table class="errors"><thead><tr><th>File</th><th>Where</th><th>Fault</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></section>"
        )
    if not environments:
        parts.append('<p class="empty">No environment is loaded: check <code>--specs</code> and the errors above.</p>')
    else:
        links = "".join(f'<a href="#env-{_e(env.name)}">{_e(env.name)}</a>' for env in environments)
        parts.append(f'<nav class="toc" aria-label="Environments">{links}</nav>')
    parts.extend(_environment(env) for env in environments)
    return "".join(parts)


def _environment(env: Environment) -> str:
    tools = "".join(_tool(env.name, tool) for tool in env.tools)
    instructions = (
        f"<details><summary>Instructions</summary><pre>{_e(env.instructions)}</pre></details>"
        if env.instructions
        else ""
    )
    return (
        f'<article class="env-card" id="env-{_e(env.name)}">'
        f'<h2>{_e(env.name)} <span class="sub">{len(env.tools)} tools · {_e(env.source)}</span></h2>'
        f'<p class="description">{_e(env.description)}</p>'
        '<div class="actions">'
        f'<button type="button" class="new-session" data-env="{_e(env.name)}">New session</button></div>'
        f"{instructions}"
        f"<details><summary>Initial state</summary><pre>{_e(json_text(env.initial_state))}</pre></details>"
        f'<h3>Tools</h3><div class="tools">{tools}</div></article>'
    )


def _tool(env: str, tool: ToolSpec) -> str:
    annotations = tool.annotations.model_dump(by_alias=True) if tool.annotations is not None else {}
    hints = {
        "readOnlyHint": "read-only",
        "destructiveHint": "destructive",
        "idempotentHint": "idempotent",
        "openWorldHint": "open world",
    }
    badges = "".join(
        f'<span class="badge {key.removesuffix("Hint")}">{label}</span>'
        for key, label in hints.items()
        if annotations.get(key) is True
    )
    output = (
        f"<details><summary>Output schema</summary><pre>{_e(json_text(tool.output_schema))}</pre></details>"
        if tool.output_schema is not None
        else '<p class="sub">No output schema: results are free-form.</p>'
    )
    title = f' <span class="sub">{_e(tool.title)}</span>' if tool.title else ""
    return (
        f'<div class="tool-card" id="tool-{_e(env)}-{_e(tool.name)}">'
        f"<h4><code>{_e(tool.name)}</code>{title} {badges}</h4>"
        f'<p class="description">{_e(tool.description)}</p>'
        f"<details><summary>Input schema</summary><pre>{_e(json_text(tool.input_schema))}</pre></details>"
        f"{output}</div>"
    )


# ---------------------------------------------------------------------------------------------------- other pages


def login_body(next_path: str, error: str | None) -> str:
    messages = {
        "wrong": "That is not the server's token.",
        "stale": "The token this browser kept no longer works (the server's token changed): enter the new one.",
    }
    message = f'<p class="warning">{_e(messages.get(error, "Sign in failed."))}</p>' if error else ""
    return (
        '<section class="login"><h1>Sign in</h1>'
        "<p>This server asks for a bearer token (<code>--token</code> / <code>SIM_MCP_TOKEN</code>). "
        "Enter it once: this browser keeps it in a cookie until it closes.</p>"
        f"{message}"
        '<form method="post" action="/ui/login">'
        f'<input type="hidden" name="next" value="{_e(next_path)}">'
        '<label>Token <input type="password" name="token" required autocomplete="current-password" autofocus>'
        '</label><button type="submit">Sign in</button></form></section>'
    )


def message_body(heading: str, text: str) -> str:
    return (
        f'<section class="message"><h1>{_e(heading)}</h1><p>{_e(text)}</p>'
        '<p><a href="/ui">All sessions</a></p></section>'
    )
