"""Something started in the background for a while (a server, a fake model), used as a context manager."""

from __future__ import annotations

from types import TracebackType
from typing import Self

import anyio.to_thread


class Background:
    """`start()` and `stop()` make it a context manager, plain and async (`async with` starts it in a worker
    thread, since starting waits for a port to answer)."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return await anyio.to_thread.run_sync(self.start)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await anyio.to_thread.run_sync(self.stop)
