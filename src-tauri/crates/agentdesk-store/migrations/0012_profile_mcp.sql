-- A profile's MCP servers (issue 24): a JSON list of `McpServer`s, passed to the engine at
-- each run. Names and env var names only: no secret is stored here.
ALTER TABLE profiles ADD COLUMN mcp_servers TEXT NOT NULL DEFAULT '[]';
