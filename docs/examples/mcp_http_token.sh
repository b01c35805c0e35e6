python -c "import secrets; print(secrets.token_urlsafe(32))" > ~/.graphmem-token
chmod 600 ~/.graphmem-token
graphmem --db /abs/path/agent.kuzu mcp --transport http --host 0.0.0.0 --token-file ~/.graphmem-token
claude mcp add --transport http memory http://memory-host:8765/mcp \
  --header "Authorization: Bearer $(cat ~/.graphmem-token)"
