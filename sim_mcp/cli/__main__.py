"""`python -m sim_mcp.cli`: the same as the `sim-mcp` command."""

from sim_mcp.cli import main

raise SystemExit(main())
