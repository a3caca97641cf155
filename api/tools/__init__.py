"""The MCP server: the SDK's app with our OAuth routes, its tools, and the paths it serves.
Never a module or folder named `mcp`: it would shadow the SDK."""
