"""The scoring of benchmarks/twin_agents.py (Kendall's tau-b, each agent's means, rewards that agree) and
the scripted agents of benchmarks/agent_sessions.py (ids read from answers, the same session per seed)."""

from __future__ import annotations

import random

from benchmarks.agent_sessions import CalculatorAgent, KeyValueAgent, TaskAgent
from benchmarks.twin_agents import Scores, kendall_tau_b


def test_kendall_tau_b_ranks_alike_opposite_and_tied() -> None:
    assert kendall_tau_b([1.0, 0.5, 0.2, 0.0], [0.9, 0.6, 0.1, 0.0]) == 1.0
    assert kendall_tau_b([1.0, 0.5, 0.2], [0.0, 0.5, 0.9]) == -1.0
    assert kendall_tau_b([1.0, 0.5, 0.0], [0.0, 0.0, 0.0]) == 0.0  # the twin scores every agent alike


def test_scores_give_each_agents_means_and_the_share_of_rewards_that_agree() -> None:
    scores = Scores(
        [
            {"task": "t", "agent": "perfect", "repeat": 0, "real": 1.0, "twin": 1.0},
            {"task": "t", "agent": "perfect", "repeat": 1, "real": 1.0, "twin": 0.0},
            {"task": "t", "agent": "idle", "repeat": 0, "real": 0.0, "twin": 0.0},
            {"task": "t", "agent": "idle", "repeat": 1, "real": 0.0, "twin": 0.0},
        ]
    )
    summary = scores.summary()
    assert summary["agents"]["perfect"] == {"real": 1.0, "twin": 0.5}
    assert (summary["reward_agrees"], summary["reward_agreement"]) == (3, 0.75)
    assert summary["largest_gap"] == 0.5
    assert summary["kendall_tau_b"] == 1.0


def test_the_task_agent_takes_ids_from_answers_and_follows_the_lifecycle() -> None:
    agent = TaskAgent(random.Random(0))
    tool, _ = agent.next_call()
    assert tool == "request_planning"
    agent.observe({"status": "planned", "requestId": "req-7", "tasks": [{"id": "task-3"}, {"id": "task-4"}]})
    calls = []
    for _ in range(30):
        tool, arguments = agent.next_call()
        calls.append((tool, arguments))
        if tool == "get_next_task":
            agent.observe({"status": "next_task", "task": {"id": "task-3"}})
        elif tool == "mark_task_done":
            agent.observe({"status": "task_marked_done"})
        else:
            agent.observe({"status": "ok"})
    named = [arguments.get("requestId") for _, arguments in calls if "requestId" in arguments]
    assert named.count("req-7") > 0.7 * len(named)  # about 15% mistakes
    assert ("mark_task_done", {"requestId": "req-7", "taskId": "task-3"}) in [
        (tool, {k: v for k, v in arguments.items() if k != "completedDetails"}) for tool, arguments in calls
    ]


def test_scripted_sessions_are_the_same_for_the_same_seed() -> None:
    for kind in (KeyValueAgent, CalculatorAgent):
        runs = []
        for _ in range(2):
            agent = kind(random.Random("s"))
            calls = []
            for _ in range(20):
                calls.append(agent.next_call())
                agent.observe("The sum of 1 and 2 is 3")
            runs.append(calls)
        assert runs[0] == runs[1]
