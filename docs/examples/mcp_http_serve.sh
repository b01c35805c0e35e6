graphmem --db /abs/path/agent.kuzu mcp --transport http            # http://127.0.0.1:8765/mcp
