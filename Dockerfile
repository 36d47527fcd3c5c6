# syntax=docker/dockerfile:1
# sim-mcp: MCP server with simulated tools. Build: docker build -t sim-mcp .
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY sim_mcp ./sim_mcp
COPY tool_specs ./tool_specs
RUN pip install --no-cache-dir build==1.2.2 && python -m build --wheel --outdir /dist

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SIM_MCP_TRANSPORT=http \
    SIM_MCP_HOST=0.0.0.0 \
    SIM_MCP_PORT=8765 \
    SIM_MCP_SPECS=/specs
COPY --from=build /dist/*.whl /tmp/
RUN pip install --no-cache-dir /tmp/*.whl && rm /tmp/*.whl \
    && useradd --create-home --uid 10001 sim
COPY --chown=sim:sim tool_specs /specs
USER 10001
WORKDIR /home/sim
VOLUME ["/specs"]
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen(f\"http://127.0.0.1:{os.environ.get('SIM_MCP_PORT', '8765')}/healthz\", timeout=2)"]
CMD ["sim-mcp", "serve"]
