"""The adaptive curriculum: which task a harness should run next, at a difficulty that follows the agent.

As in TRUSTEE, each environment has a current difficulty level, and the rewards of the latest episodes at
that level move it: once `window` episodes are in, a mean reward of `up` or more (0.5 by default) moves it
one level up, a mean of `down` or less (0 by default) one level down, and the window starts afresh.

- **Levels** are the difficulties of the environment's tasks (the task files, those `sim-mcp tasks generate`
  wrote included): whole numbers, or `easy`, `medium`, `hard` (1, 2, 3); a task without one is level 1.
  A new environment starts at its lowest level; moves go to the next level that has tasks.
- **Next task**: the tasks of the current level, by name, in turn.
- **Rewards** come from `POST /curriculum/report`, and from `/evaluate` on sessions created from a task
  (the first evaluation of each episode). Only rewards of tasks at the current level count toward a move.
- **State** is one JSON document in the session store (`put_meta("curriculum")`), so it survives restarts
  and is shared by replicas on Redis; every change to it happens under a store lock of its own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from sim_mcp.episodes.tasks import Task
from sim_mcp.errors import ConfigError, InvalidSessionInput
from sim_mcp.state.stores.base import SessionStore

__all__ = ["CURRICULUM_KEY", "Curriculum", "CurriculumPolicy", "CurriculumState", "EnvProgress", "task_level"]

CURRICULUM_KEY = "curriculum"
# The lock that guards the curriculum's document: no session id can hold a '~', so none shares it.
_LOCK = "~curriculum"
LEVEL_WORDS = {"easy": 1, "medium": 2, "hard": 3}
# Moves kept in the state, newest last.
_MOVES_KEPT = 50

Direction = Literal["up", "down"]


def task_level(task: Task) -> int:
    """A task's level: its difficulty as a whole number (`2`, `"2"`, `medium`), else 1."""
    difficulty = task.difficulty
    if isinstance(difficulty, int) and not isinstance(difficulty, bool):
        return difficulty
    if isinstance(difficulty, str):
        text = difficulty.strip().lower()
        if text.lstrip("-").isdigit():
            return int(text)
        return LEVEL_WORDS.get(text, 1)
    return 1


class Move(BaseModel):
    at: float = Field(default_factory=time.time)
    direction: Direction
    level_from: int
    level_to: int
    mean: float = Field(description="The mean reward over the window that moved it.")


class EnvProgress(BaseModel):
    """One environment's place in the curriculum."""

    level: int | None = Field(default=None, description="The current level; None: the lowest there is.")
    rewards: list[float] = Field(default_factory=list, description="Rewards at this level since the last move.")
    episodes: int = Field(default=0, description="Rewards reported for this environment, at any level.")
    served: dict[str, int] = Field(default_factory=dict, description="Level -> tasks handed out (the turn).")
    last_task: str | None = None
    moves: list[Move] = Field(default_factory=list)


class CurriculumState(BaseModel):
    envs: dict[str, EnvProgress] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CurriculumPolicy:
    """When to move: after `window` rewards at a level, up at a mean of `up` or more, down at `down` or less."""

    window: int = 5
    up: float = 0.5
    down: float = 0.0

    def check(self) -> None:
        if self.window < 1:
            raise ConfigError(f"--curriculum-window: expected 1 or more episodes, got {self.window}")
        if not self.down < self.up:
            raise ConfigError(
                f"--curriculum-down ({self.down:g}) must be below --curriculum-up ({self.up:g}): a mean reward "
                "cannot call for both moves"
            )


class Curriculum:
    """The curriculum over the tasks `tasks()` returns, kept in `store`."""

    def __init__(
        self, store: SessionStore, tasks: Callable[[], Mapping[str, Task]], policy: CurriculumPolicy | None = None
    ) -> None:
        self.store = store
        self._tasks = tasks
        self.policy = policy if policy is not None else CurriculumPolicy()
        self.policy.check()

    def tasks_of(self, env: str) -> dict[int, list[Task]]:
        """The environment's tasks by level, each level's by name."""
        levels: dict[int, list[Task]] = {}
        for task in sorted(self._tasks().values(), key=lambda task: task.name):
            if task.env == env:
                levels.setdefault(task_level(task), []).append(task)
        return dict(sorted(levels.items()))

    async def load(self) -> CurriculumState:
        stored = await self.store.get_meta(CURRICULUM_KEY)
        return CurriculumState.model_validate(stored) if stored is not None else CurriculumState()

    async def view(self, env: str | None = None) -> dict[str, Any]:
        """`{"policy", "envs": {env: progress}}` for every environment with tasks (or one)."""
        state = await self.load()
        names = [env] if env is not None else sorted({task.env for task in self._tasks().values()} | set(state.envs))
        if env is not None:
            self._check_env(env)
        envs = {name: self._describe(name, state.envs.get(name, EnvProgress())) for name in names}
        return {"policy": self._policy(), "envs": envs}

    async def next(self, env: str) -> dict[str, Any]:
        """The next task at the environment's current level (each level's tasks in turn)."""
        levels = self._check_env(env)
        async with self.store.lock(_LOCK):
            state = await self.load()
            progress = state.envs.get(env, EnvProgress())
            level = _current(progress.level, list(levels))
            tasks = levels[level]
            count = progress.served.get(str(level), 0)
            task = tasks[count % len(tasks)]
            progress = progress.model_copy(
                update={"level": level, "served": {**progress.served, str(level): count + 1}, "last_task": task.name}
            )
            state.envs[env] = progress
            await self.store.put_meta(CURRICULUM_KEY, state.model_dump(mode="json"))
        return {
            "task": task.name,
            "env": env,
            "level": level,
            "levels": list(levels),
            "description": task.description,
            "user": task.user is not None,
        }

    async def report(self, task_name: str, reward: float, *, field: str = "task") -> dict[str, Any]:
        """Count one episode's reward; the environment's progress after it, and the move it caused, if any."""
        task = self._tasks().get(task_name)
        if task is None:
            known = ", ".join(sorted(self._tasks())) or "none loaded"
            raise InvalidSessionInput(field, f"unknown task {task_name!r}: expected one of {known}")
        if not math.isfinite(reward):
            raise InvalidSessionInput("reward", f"expected a finite number, got {reward!r}")
        levels = self.tasks_of(task.env)
        moved: Direction | None = None
        async with self.store.lock(_LOCK):
            state = await self.load()
            progress = state.envs.get(task.env, EnvProgress())
            level = _current(progress.level, list(levels))
            counted = task_level(task) == level
            rewards = [*progress.rewards, reward][-self.policy.window :] if counted else progress.rewards
            moves = progress.moves
            if counted and len(rewards) >= self.policy.window:
                mean = sum(rewards) / len(rewards)
                higher = [other for other in levels if other > level]
                lower = [other for other in levels if other < level]
                target: int | None = None
                if mean >= self.policy.up and higher:
                    moved, target = "up", higher[0]
                elif mean <= self.policy.down and lower:
                    moved, target = "down", lower[-1]
                if moved is not None and target is not None:
                    move = Move(direction=moved, level_from=level, level_to=target, mean=round(mean, 6))
                    moves = [*moves, move][-_MOVES_KEPT:]
                    level, rewards = target, []
            progress = progress.model_copy(
                update={"level": level, "rewards": rewards, "episodes": progress.episodes + 1, "moves": moves}
            )
            state.envs[task.env] = progress
            await self.store.put_meta(CURRICULUM_KEY, state.model_dump(mode="json"))
        return {
            "task": task.name,
            "env": task.env,
            "reward": reward,
            "counted": counted,
            "moved": moved,
            **self._describe(task.env, progress),
        }

    async def reset(self, env: str | None = None) -> dict[str, Any]:
        """Forget the progress of one environment, or of all of them: back to the lowest levels."""
        async with self.store.lock(_LOCK):
            state = await self.load()
            if env is None:
                state = CurriculumState()
            else:
                state.envs.pop(env, None)
            await self.store.put_meta(CURRICULUM_KEY, state.model_dump(mode="json"))
        return await self.view()

    def _check_env(self, env: str) -> dict[int, list[Task]]:
        levels = self.tasks_of(env)
        if not levels:
            having = sorted({task.env for task in self._tasks().values()})
            expected = ", ".join(having) or "none: no task files are loaded"
            raise InvalidSessionInput(
                "env", f"no tasks for environment {env!r}: expected an environment with tasks ({expected})"
            )
        return levels

    def _describe(self, env: str, progress: EnvProgress) -> dict[str, Any]:
        levels = self.tasks_of(env)
        level = _current(progress.level, list(levels)) if levels else progress.level
        rewards = progress.rewards
        return {
            "level": level,
            "levels": list(levels),
            "tasks": {str(number): [task.name for task in tasks] for number, tasks in levels.items()},
            "rewards": rewards,
            "mean": round(sum(rewards) / len(rewards), 6) if rewards else None,
            "episodes": progress.episodes,
            "last_task": progress.last_task,
            "moves": [move.model_dump(mode="json") for move in progress.moves],
        }

    def _policy(self) -> dict[str, Any]:
        return {"window": self.policy.window, "up": self.policy.up, "down": self.policy.down}


def _current(level: int | None, levels: list[int]) -> int:
    """The level to use: the stored one when it still has tasks, else the nearest below it, else the lowest."""
    if level is None or level in levels:
        return level if level is not None else levels[0]
    below = [other for other in levels if other < level]
    return below[-1] if below else levels[0]
