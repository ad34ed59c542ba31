-- A Goose sessions.db (block/goose crates/goose/src/session/session_manager.rs,
-- schema version 5, with the model_config_json and provider_name columns the
-- builds ccusage 20.0.24 reads have). Every raw value carries CANARY.
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (5);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, model_config_json TEXT, provider_name TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
INSERT INTO sessions VALUES ('20261120_1', 'CANARY-name', 'CANARY-description', TRUE, 'user', '/Users/gus/src/CANARY-proj',
    '2026-11-20 10:00:00', '2026-11-20 10:05:00', '{"CANARY-extension":{"enabled":true}}', 900, 700, 200, 5400, 4000, 1100,
    NULL, NULL, NULL, '{"model_name":"claude-sonnet-4-5","context_limit":200000,"temperature":null}', 'anthropic');
INSERT INTO sessions VALUES ('20261120_2', '', 'CANARY-subagent', FALSE, 'sub_agent', '/Users/gus/src/CANARY-proj',
    '2026-11-20 10:02:00', '2026-11-20 10:03:00', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES
    ('20261120_1', 'user', '[{"type":"text","text":"CANARY-prompt fix the tests"}]', 1795168801, '{"userVisible":true,"agentVisible":true}'),
    ('20261120_1', 'assistant', '[{"type":"text","text":"CANARY-plan"},{"type":"toolRequest","id":"toolu_01GooseShellA1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"CANARY-cmd"}}}}]', 1795168804, '{"userVisible":true,"agentVisible":true}'),
    ('20261120_1', 'user', '[{"type":"toolResponse","id":"toolu_01GooseShellA1","toolResult":{"status":"success","value":[{"type":"text","text":"CANARY-out"}]}}]', 1795168806, '{"userVisible":true,"agentVisible":true}'),
    ('20261120_1', 'assistant', '[{"type":"thinking","thinking":"CANARY-think","signature":"CANARY-sig"},{"type":"toolRequest","id":"toolu_01GooseLookB2","toolCall":{"status":"success","value":{"name":"CANARY-docs__CANARY_lookup","arguments":{"q":"CANARY-q"}}}}]', 1795168810, NULL),
    ('20261120_1', 'user', '[{"type":"toolResponse","id":"toolu_01GooseLookB2","toolResult":{"status":"error","error":"CANARY-error"}}]', 1795168811, NULL),
    ('20261120_1', 'assistant', '[{"type":"text","text":"CANARY-done"}]', 1795168815, NULL),
    ('20261120_2', 'user', '[{"type":"text","text":"CANARY-subtask"}]', 1795168920, NULL),
    ('20261120_2', 'assistant', '[{"type":"text","text":"CANARY-subresult"}]', 1795168925, NULL);
