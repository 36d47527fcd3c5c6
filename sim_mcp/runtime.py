"""The composition root: `Settings` -> catalog, store, backend, simulator, session service, tasks, judge, users,
curriculum, the after-commit hooks and the services transports call (`services.py`). Transports (`server/`)
build on a runtime; nothing here knows them."""

from __future__ import annotations

import logging
from types import TracebackType

import anyio.lowlevel

from sim_mcp.config import EngineConfig, EpisodesConfig, FaultsConfig, LlmConfig, ServerConfig, Settings
from sim_mcp.engine.backends import Backend, load_backend
from sim_mcp.engine.cassette import CassetteRecorder
from sim_mcp.engine.hooks import AfterCommit
from sim_mcp.engine.sessions import SessionService
from sim_mcp.engine.simulator import Simulator
from sim_mcp.episodes.curriculum import Curriculum, CurriculumPolicy
from sim_mcp.episodes.judge import Judge, judge_for
from sim_mcp.episodes.tasks import Task, load_tasks
from sim_mcp.episodes.trajectory_writer import TrajectoryWriter
from sim_mcp.episodes.user import UserSimulator
from sim_mcp.errors import SpecError
from sim_mcp.rules import Limits, RulesChecks
from sim_mcp.services import CallService, EpisodeService
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import Catalog, SpecCache, load_catalog
from sim_mcp.state.stores import SessionStore, open_store

logger = logging.getLogger("sim_mcp")


class Runtime:
    """Owns the server's long-lived parts; `async with` starts the backend and closes everything after."""

    def __init__(
        self,
        settings: Settings,
        *,
        catalog: Catalog | None = None,
        backend: Backend | None = None,
        store: SessionStore | None = None,
    ) -> None:
        self.settings = settings
        # Each part gets the settings of the concerns it reads, no more.
        engine, llm, episodes = EngineConfig.of(settings), LlmConfig.of(settings), EpisodesConfig.of(settings)
        # What loading the specs learns that a reload reuses (each file's environment by its content, each
        # distinct schema's check and validator), and each distinct rules program's verdict.
        self.spec_cache = SpecCache()
        self.rules_checks = RulesChecks()
        self.catalog = catalog if catalog is not None else load_catalog(*settings.specs, cache=self.spec_cache)
        self.backend = backend if backend is not None else load_backend(llm, Limits.of(engine))
        self.store = store if store is not None else open_store(settings.store)
        # The one after-commit path (engine/hooks.py). `--trajectories DIR` and `--record FILE` subscribe here
        # (docs/training.md), and so do the transports' notifications and metrics; the files are checked now,
        # so a folder or file that cannot be written fails at start, naming the flag.
        self.hooks = AfterCommit()
        self.trajectories = TrajectoryWriter(episodes.trajectories) if episodes.trajectories is not None else None
        self.recorder = CassetteRecorder(episodes.record) if episodes.record is not None else None
        for writer in (self.trajectories, self.recorder):
            if writer is not None:
                writer.check()
                self.hooks.subscribe(writer)
        self.simulator = Simulator(
            lambda: self.catalog,
            self.backend,
            self.store,
            engine,
            llm=llm,
            faults=FaultsConfig.of(settings),
            max_sessions=ServerConfig.of(settings).max_sessions,
            hooks=self.hooks,
            rules_checks=self.rules_checks,
        )
        self.sessions = SessionService(self.simulator)
        for error in self.catalog.errors:
            logger.warning("skipped spec: %s", error)
        # By environment name: the version whose rules program was checked, and its problems. Programs are
        # checked after start (`check_rules_in_background`), or when a call first needs one, not before serving.
        self._rules_checked: dict[str, tuple[Environment, tuple[SpecError, ...]]] = {}
        # Tasks (the `tasks` folders beside the specs) and the judge of those with a rubric (None: offline).
        self.tasks: dict[str, Task] = {}
        self.task_errors: list[SpecError] = []
        self.load_tasks()
        self.judge: Judge | None = judge_for(
            self.backend, max_attempts=llm.max_attempts, state_budget_chars=llm.state_budget_chars
        )
        # The simulated users of sessions made from tasks, and the curriculum over the tasks (docs/users.md).
        self.users = UserSimulator(self.sessions, lambda: self.tasks, max_attempts=llm.max_attempts)
        policy = CurriculumPolicy(episodes.curriculum_window, episodes.curriculum_up, episodes.curriculum_down)
        self.curriculum = Curriculum(self.store, lambda: self.tasks, policy)
        # What transports call (services.py): the rules of episodes and of where a call goes live there.
        self.episodes = EpisodeService(self.sessions, lambda: self.tasks, self.judge, self.users, self.curriculum)
        self.calls = CallService(self.simulator, self.sessions, self.users)

    def load_tasks(self) -> dict[str, Task]:
        """Read the task files again (at start and on reload); files that fail are logged and skipped."""
        self.tasks, self.task_errors = load_tasks(*self.settings.specs)
        for error in self.task_errors:
            logger.warning("skipped task: %s", error)
        return self.tasks

    def reload(self) -> Catalog:
        """Load the spec folders again; the new catalog serves from the next request on. A file that
        broke keeps its last good version served; sessions keep their state."""
        old = self.catalog
        self.catalog = load_catalog(*self.settings.specs, previous=old, cache=self.spec_cache)
        self.load_tasks()
        for error in self.catalog.errors:
            logger.warning("spec not (re)loaded: %s", error)
        # The programs of what the reload changed are checked now (the rest, if any, by the background task).
        for environment in self.catalog.environments.values():
            if old.environment(environment.name) is not environment:
                self._check_rules_of(environment)
        return self.catalog

    async def check_rules_in_background(self) -> None:
        """Check every environment's rules program against its examples, one environment at a time, yielding
        to the event loop between them, and log the problems of those not used (their tools fall back to the
        backend). Served from the start: a call compiles its environment's program itself if it comes first."""
        while pending := self._rules_unchecked():
            for environment in pending:
                if self.catalog.environment(environment.name) is environment:
                    self._check_rules_of(environment)
                await anyio.lowlevel.checkpoint()

    def rules_status(self) -> tuple[int, list[SpecError]]:
        """How many of the catalog's environments have had their rules program checked, and the problems found
        so far (in `/readyz`)."""
        checked, errors = 0, list[SpecError]()
        for environment in self.catalog.environments.values():
            found = self._rules_checked.get(environment.name)
            if found is not None and found[0] is environment:
                checked += 1
                errors += found[1]
        return checked, errors

    def _rules_unchecked(self) -> list[Environment]:
        return [
            environment
            for environment in self.catalog.environments.values()
            if (found := self._rules_checked.get(environment.name)) is None or found[0] is not environment
        ]

    def _check_rules_of(self, environment: Environment) -> None:
        errors = self.simulator.rules_verdict(environment).errors
        self._rules_checked[environment.name] = (environment, errors)
        for error in errors:
            logger.warning("rules program not used, the backend answers: %s", error)

    async def __aenter__(self) -> Runtime:
        await self.store.start()
        try:
            await self.backend.start()
        except BaseException:
            await self.store.aclose()
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self.backend.aclose()
        finally:
            if self.recorder is not None:
                self.recorder.close()
            await self.store.aclose()
