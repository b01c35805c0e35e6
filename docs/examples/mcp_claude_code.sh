claude mcp add memory -- /abs/path/.venv/bin/graphmem --db /abs/path/agent.kuzu mcp
