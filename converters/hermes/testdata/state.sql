-- A Hermes Agent state.db: the sessions and messages tables as
-- hermes_state_common.py's SCHEMA_SQL (version 30) creates them, the
-- columns convert and ccusage 20.0.24 read among them. Every raw value
-- carries CANARY.
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (30);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT, session_key TEXT, chat_id TEXT,
    chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT, expiry_finalized INTEGER DEFAULT 0,
    model TEXT, model_config TEXT, system_prompt TEXT, system_prompt_hash TEXT, parent_session_id TEXT,
    started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT, git_branch TEXT, git_repo_root TEXT, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
    estimated_cost_usd REAL, actual_cost_usd REAL, title TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, effect_disposition TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT,
    _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
INSERT INTO sessions (id, source, user_id, display_name, model, model_config, system_prompt, started_at, ended_at,
    end_reason, message_count, tool_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
    reasoning_tokens, cwd, git_branch, billing_provider, estimated_cost_usd, actual_cost_usd, title)
  VALUES ('20261120_100000_a1b2c3', 'cli', 'CANARY-user', 'CANARY-name', 'claude-sonnet-4-5', '{"CANARY":1}',
    'CANARY-system-prompt', 1795168800.25, 1795168860.5, 'compression', 7, 2, 12000, 900, 30000, 4000, 120,
    '/Users/hana/src/CANARY-repo', 'CANARY-branch', 'anthropic', 0.09, NULL, 'CANARY-title');
INSERT INTO sessions (id, source, model, parent_session_id, started_at, message_count, input_tokens, output_tokens,
    cwd, billing_provider)
  VALUES ('20261120_100100_d4e5f6', 'cli', 'claude-sonnet-4-5', '20261120_100000_a1b2c3', 1795168861.0, 2, 1500, 60,
    '/Users/hana/src/CANARY-repo', 'anthropic');
INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, _compressed_summary) VALUES
  ('20261120_100000_a1b2c3', 'user', 'CANARY-prompt fix the flaky test', NULL, NULL, NULL, 1795168801.0, NULL, NULL, 0),
  ('20261120_100000_a1b2c3', 'assistant', 'CANARY-plan', NULL, '[{"id":"call_7hQ2mX9pL4vK","type":"function","function":{"name":"terminal","arguments":"{\"command\": \"CANARY-cmd\"}"}}]', NULL, 1795168804.0, 'tool_calls', 'CANARY-reasoning', 0),
  ('20261120_100000_a1b2c3', 'tool', 'CANARY-output', 'call_7hQ2mX9pL4vK', NULL, 'terminal', 1795168806.0, NULL, NULL, 0),
  ('20261120_100000_a1b2c3', 'assistant', '', NULL, '[{"id":"call_3bN8wR1tY6zQ","type":"function","function":{"name":"CANARY_mcp_lookup","arguments":"{\"q\": \"CANARY-q\"}"}}]', NULL, 1795168810.0, 'tool_calls', NULL, 0),
  ('20261120_100000_a1b2c3', 'tool', 'CANARY-lookup', 'call_3bN8wR1tY6zQ', NULL, 'CANARY_mcp_lookup', 1795168812.0, NULL, NULL, 0),
  ('20261120_100000_a1b2c3', 'assistant', 'CANARY-answer', NULL, NULL, NULL, 1795168820.0, 'stop', NULL, 0),
  ('20261120_100000_a1b2c3', 'user', 'CANARY-summary of the earlier turns', NULL, NULL, NULL, 1795168859.0, NULL, NULL, 1),
  ('20261120_100100_d4e5f6', 'user', 'CANARY-continue', NULL, NULL, NULL, 1795168862.0, NULL, NULL, 0),
  ('20261120_100100_d4e5f6', 'assistant', 'CANARY-done', NULL, NULL, NULL, 1795168865.0, 'stop', NULL, 0);
