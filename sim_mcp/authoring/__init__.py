"""What writes environments, one room per job: `twins/` (a real tool recorded, its twin learned without a
model, and checked against it), `programs/` (rules programs written by a model or scaffolded from a spec)
and `tasks/` (tasks proven by their reference solutions)."""
