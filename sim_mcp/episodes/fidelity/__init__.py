"""The fidelity benchmark: scripted call sequences whose later results must agree with earlier ones.

A scenario file (YAML or JSON) names an environment and a list of steps; each step calls a tool and
states what the outcome must be::

    name: tickets-lifecycle
    env: tickets
    state: {...}                        # optional: a merge patch over initial_state
    steps:
      - id: create                      # optional: lets later steps use this step's outcome
        call: create_ticket
        args: {title: VPN drops, description: Every hour., customer_email: ops@acme.example}
        expect:
          is_error: false               # or `found: true` (found: false is is_error: true)
          result: {status: open}        # the result holds these keys with these values (a subset)
          checks:                       # checks on the result (see tasks): JSON Pointer or JSONPath
            - {path: /id, equals: T-1006}
          state:                        # checks on the environment's state after the call
            - {path: "/tickets/{{steps.create.result.id}}/title", equals: VPN drops}
        rules:                          # expectations that follow from the environment's instructions
          result: {assignee: null}      # (counted only for backends with a model: see below)
      - call: get_ticket
        args: {ticket_id: "{{steps.create.result.id}}"}
        expect: {found: true, result: {id: "{{steps.create.result.id}}", title: VPN drops}}

Templates: `{{steps.ID.result.PATH}}`, `{{steps.ID.is_error}}` and `{{steps.ID.args.PATH}}` (PATH:
keys and list indexes joined by dots, e.g. `result.tickets.0.id`) in args and expectations. A string
that is only a template takes the value's JSON type; inside a longer string the value is written as text.

Scoring: each expectation counts one (each key of an expected `result`, each check); a scenario's score
is the share met. `expect` holds what state consistency alone implies (created records are found,
updates are visible, cancelled ones stay cancelled, ids increase, unknown ids are not found); `rules`
holds what only a simulator that reads the environment's instructions gets right (balances, stock,
permissions). Rules are counted for backends with a model, and for steps whose tool a rules program
answers (it carries the instructions out as code); they are skipped for the generic offline engine
(which does not read instructions), unless `--rules always` or `never` says otherwise.

State, per call (EnvSimBench's measure): given a reference (the same scenarios run first through the
hand-written rules programs, `bench-fidelity --reference`), each call starts from the reference's state
before it, with the reference's arguments, so that one miss counts once; its result matches when every
expectation of the step on the result is met, and its state matches when the state after it equals the
reference's (date-times compared by form: a simulator writes its own "now"). Calls are also grouped by
how many fields the reference's call changed (0, 1, 2, 3-4, 5+), with a line of their own for the calls
that change state. A scenario whose tools do not all have a reference program is run without one.
"""

from __future__ import annotations

from sim_mcp.episodes.fidelity.report import FIELD_GROUPS, BenchmarkReport, ScenarioReport
from sim_mcp.episodes.fidelity.running import RulesMode, reference_run, run_benchmark, run_scenario
from sim_mcp.episodes.fidelity.scenarios import Expectation, Scenario, check_scenarios, load_scenarios
from sim_mcp.episodes.fidelity.text_report import render_report

__all__ = [
    "FIELD_GROUPS",
    "BenchmarkReport",
    "Expectation",
    "RulesMode",
    "Scenario",
    "ScenarioReport",
    "check_scenarios",
    "load_scenarios",
    "reference_run",
    "render_report",
    "run_benchmark",
    "run_scenario",
]
