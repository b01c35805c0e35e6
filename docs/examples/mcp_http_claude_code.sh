claude mcp add --transport http memory http://127.0.0.1:8765/mcp
