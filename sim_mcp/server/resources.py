"""A session's world state and event log as MCP resources, with change notifications in both eras.

`sim://session/state` and `sim://session/events` (JSON) belong to the session the request belongs to,
by the same rule as tool calls. After each committed call (and a reset or delete through the control
API) the session's subscribers hear that both changed:
- handshake era: a connection that sent `resources/subscribe` gets `notifications/resources/updated` on
  its standalone stream (the HTTP GET stream);
- 2026-07-28 era: a `subscriptions/listen` stream that asked for the URI gets a `ResourceUpdated` event.

Notifications stay in the process: with several replicas on one Redis, a subscriber hears about the
changes made through the replica it is connected to.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

from sim_mcp.engine.hooks import Change, Lifecycle
from sim_mcp.engine.sessions import SessionService
from sim_mcp.server.live import LiveFeed

logger = logging.getLogger("sim_mcp")

STATE_URI = "sim://session/state"
EVENTS_URI = "sim://session/events"
RESOURCE_URIS = (STATE_URI, EVENTS_URI)

# A subscriber that does not take a notification in this time (a stalled stream) is dropped.
_SEND_TIMEOUT_S = 2.0


@dataclass
class _Subscriber:
    """A handshake-era connection subscribed to some of a session's resources."""

    session: ServerSession
    uris: set[str] = field(default_factory=set)


class SessionChanges:
    """Who listens to which session's resources, in this process; `changed(id)` tells them all.

    `bus` carries server-wide events (such as `ToolsListChanged`) to every listen stream, whatever its
    session; resource events go only to the streams of the session that changed.
    """

    def __init__(self, *, max_subscribers_per_session: int = 64, max_tool_watchers: int = 4096) -> None:
        self.bus = InMemorySubscriptionBus()
        self.max_subscribers_per_session = max_subscribers_per_session
        self.max_tool_watchers = max_tool_watchers
        self._session_buses: dict[str, tuple[InMemorySubscriptionBus, int]] = {}
        self._subscribers: dict[str, dict[str, _Subscriber]] = {}
        # Handshake-era connections that listed tools: told when the tool list changes (hot reload).
        self._tool_watchers: dict[str, ServerSession] = {}
        # Watchers of the session list (the web UI's event stream): told of every change, of any session.
        self.live = LiveFeed()

    def watch_tools(self, connection: str, session: ServerSession) -> None:
        """Handshake era: `connection` has listed tools, so it hears `notifications/tools/list_changed`."""
        self._tool_watchers.pop(connection, None)
        self._tool_watchers[connection] = session
        while len(self._tool_watchers) > self.max_tool_watchers:
            del self._tool_watchers[next(iter(self._tool_watchers))]  # the oldest goes first

    async def tools_changed(self) -> None:
        """The tool list changed: every 2026-07-28 listen stream and every handshake-era connection hears it."""
        await self.bus.publish(ToolsListChanged())
        for connection, session in list(self._tool_watchers.items()):
            delivered = False
            with anyio.move_on_after(_SEND_TIMEOUT_S):
                try:
                    await session.send_tool_list_changed()
                    delivered = True
                except Exception as e:  # fan-out boundary: a closed connection must not stop the others
                    logger.debug("dropped tool-list watcher %s: %s", connection, e)
            if not delivered:
                self._tool_watchers.pop(connection, None)

    def listen_handler(self, session_id: str) -> ListenHandler:
        """Serves one `subscriptions/listen` stream of `session_id`."""
        return ListenHandler(_SessionBus(self, session_id))

    def subscribe(self, session_id: str, connection: str, session: ServerSession, uri: str) -> None:
        """Handshake era: `connection` (its Mcp-Session-Id) wants `uri` of `session_id`."""
        subscribers = self._subscribers.setdefault(session_id, {})
        subscriber = subscribers.pop(connection, None) or _Subscriber(session)
        # The newest request's proxy: it reaches the same connection's standalone stream.
        subscriber.session = session
        subscriber.uris.add(uri)
        subscribers[connection] = subscriber
        while len(subscribers) > self.max_subscribers_per_session:
            del subscribers[next(iter(subscribers))]  # the oldest goes first

    def unsubscribe(self, session_id: str, connection: str, uri: str) -> None:
        subscribers = self._subscribers.get(session_id, {})
        subscriber = subscribers.get(connection)
        if subscriber is not None:
            subscriber.uris.discard(uri)
            if not subscriber.uris:
                del subscribers[connection]
        if not subscribers:
            self._subscribers.pop(session_id, None)

    def forget(self, session_id: str) -> None:
        """Drop the handshake-era subscriptions of a session that is gone."""
        self._subscribers.pop(session_id, None)

    async def __call__(self, change: Change) -> None:
        """The after-commit subscriber (engine/hooks.py): a committed call, reset or delete changed the
        session's resources; anything else only its summary in the session list."""
        if isinstance(change, Lifecycle) and not change.state_changed:
            self.touched(change.session_id)
        else:
            await self.changed(change.session_id)
        if isinstance(change, Lifecycle) and change.action in ("deleted", "expired"):
            self.forget(change.session_id)

    def touched(self, session_id: str) -> None:
        """The session changed in a way only watchers of the session list care about (created, snapshot
        taken, forked, expired): tell the live feed, not the resource subscribers."""
        self.live.publish(session_id)

    async def changed(self, session_id: str) -> None:
        """The session's state and events changed: notify whoever listens, here."""
        self.live.publish(session_id)
        for uri in RESOURCE_URIS:
            await self.publish(session_id, ResourceUpdated(uri=uri))
        subscribers = self._subscribers.get(session_id, {})
        for connection, subscriber in list(subscribers.items()):
            delivered = False
            with anyio.move_on_after(_SEND_TIMEOUT_S):
                try:
                    for uri in sorted(subscriber.uris):
                        await subscriber.session.send_resource_updated(uri)
                    delivered = True
                except Exception as e:  # fan-out boundary: one closed connection must not fail the call
                    logger.debug("dropped resource subscriber %s of session %r: %s", connection, session_id, e)
            if not delivered:
                subscribers.pop(connection, None)
        if not subscribers:
            self._subscribers.pop(session_id, None)

    async def publish(self, session_id: str, event: ServerEvent) -> None:
        """Send `event` to the listen streams of one session."""
        entry = self._session_buses.get(session_id)
        if entry is not None:
            await entry[0].publish(event)

    def subscribe_listener(self, session_id: str, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register a listen stream's `listener` for one session's events and the server-wide ones."""
        bus, count = self._session_buses.get(session_id, (InMemorySubscriptionBus(), 0))
        self._session_buses[session_id] = (bus, count + 1)
        drop_session = bus.subscribe(listener)
        drop_global = self.bus.subscribe(listener)
        done = False

        def unsubscribe() -> None:
            nonlocal done
            if done:
                return
            done = True
            drop_session()
            drop_global()
            current, left = self._session_buses.get(session_id, (bus, 1))
            # The session's bus lives only while someone listens to it.
            if left <= 1:
                self._session_buses.pop(session_id, None)
            else:
                self._session_buses[session_id] = (current, left - 1)

        return unsubscribe


class _SessionBus:
    """The `SubscriptionBus` one listen stream sees: its session's events plus the server-wide ones."""

    def __init__(self, changes: SessionChanges, session_id: str) -> None:
        self.changes = changes
        self.session_id = session_id

    async def publish(self, event: ServerEvent) -> None:
        await self.changes.publish(self.session_id, event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        return self.changes.subscribe_listener(self.session_id, listener)


SessionOf = Callable[[ServerRequestContext[Any]], str]
ScopeOf = Callable[[ServerRequestContext[Any]], "str | None"]
ConnectionOf = Callable[[ServerRequestContext[Any]], str]


@dataclass(frozen=True)
class ResourceHandlers:
    """The `Server(on_...=)` handlers that serve the session resources and their notifications."""

    list_resources: Callable[
        [ServerRequestContext[Any], types.PaginatedRequestParams | None], Awaitable[types.ListResourcesResult]
    ]
    read_resource: Callable[
        [ServerRequestContext[Any], types.ReadResourceRequestParams], Awaitable[types.ReadResourceResult]
    ]
    subscribe: Callable[[ServerRequestContext[Any], types.SubscribeRequestParams], Awaitable[types.EmptyResult]]
    unsubscribe: Callable[[ServerRequestContext[Any], types.UnsubscribeRequestParams], Awaitable[types.EmptyResult]]
    listen: Callable[
        [ServerRequestContext[Any], types.SubscriptionsListenRequestParams], Awaitable[types.SubscriptionsListenResult]
    ]


def resource_handlers(
    sessions: SessionService,
    changes: SessionChanges,
    session_of: SessionOf,
    scope_of: ScopeOf,
    connection_of: ConnectionOf,
) -> ResourceHandlers:

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=STATE_URI,
                    name="session-state",
                    title="Session world state",
                    description="This session's world state as JSON (for a session bound to an environment, that "
                    "environment's state; else an object keyed by environment name).",
                    mime_type="application/json",
                ),
                types.Resource(
                    uri=EVENTS_URI,
                    name="session-events",
                    title="Session event log",
                    description="This session's tool calls in order, as a JSON array of events.",
                    mime_type="application/json",
                ),
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        session_id = _session(ctx, session_of)
        record = await sessions.find(session_id)
        if uri == STATE_URI:
            # Reading never creates the session: one not used yet shows the state it would start with.
            state = (
                sessions.state_of(record) if record is not None else sessions.preview_state(session_id, scope_of(ctx))
            )
            text = json.dumps(state, ensure_ascii=False)
        elif uri == EVENTS_URI:
            events = await sessions.log(session_id) if record is not None else []
            text = json.dumps([event.model_dump(mode="json") for event in events], ensure_ascii=False)
        else:
            raise _unknown(uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
        )

    async def subscribe(ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in RESOURCE_URIS:
            raise _unknown(uri)
        changes.subscribe(_session(ctx, session_of), connection_of(ctx), ctx.session, uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        changes.unsubscribe(_session(ctx, session_of), connection_of(ctx), str(params.uri))
        return types.EmptyResult()

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        return await changes.listen_handler(_session(ctx, session_of))(ctx, params)

    return ResourceHandlers(list_resources, read_resource, subscribe, unsubscribe, listen)


def _session(ctx: ServerRequestContext[Any], session_of: SessionOf) -> str:
    try:
        return session_of(ctx)
    except ValueError as e:  # an invalid session name in the URL
        raise MCPError(types.INVALID_PARAMS, str(e)) from e


def _unknown(uri: str) -> MCPError:
    return MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}: expected one of {', '.join(RESOURCE_URIS)}")
