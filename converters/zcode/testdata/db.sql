-- A ZCode usage ledger, cli/db/db.sqlite: the model_usage and session
-- tables with the columns ccusage 20.0.24's query reads and those other
-- readers of the same table describe (turn_id, attempt_index,
-- query_source, reasoning_tokens, completed_at, duration_ms,
-- time_to_first_token_ms). Every raw value carries CANARY.
CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, version INTEGER, created_at INTEGER, updated_at INTEGER);
CREATE TABLE model_usage (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, turn_id TEXT, attempt_index INTEGER, query_source TEXT,
    provider_id TEXT, model_id TEXT, status TEXT NOT NULL, started_at INTEGER, completed_at INTEGER,
    duration_ms INTEGER, time_to_first_token_ms INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    reasoning_tokens INTEGER, cache_creation_input_tokens INTEGER, cache_read_input_tokens INTEGER,
    computed_total_tokens INTEGER, error_message TEXT);
CREATE TABLE turn_usage (session_id TEXT, turn_id TEXT, user_message_id TEXT, status TEXT, started_at INTEGER, completed_at INTEGER);
INSERT INTO session VALUES ('sess_7f3a9c2e1b4d', '/Users/lin/src/CANARY-app', 'CANARY-title', 2, 1795168800000, 1795168900000);
INSERT INTO model_usage VALUES
    ('mu_01a2b3c4d5e6', 'sess_7f3a9c2e1b4d', 'turn_0a1b2c3d', 0, 'main_turn', 'builtin:zai-coding-plan', 'glm-4.6', 'completed',
     1795168801000, 1795168806500, 5500, 900, 24000, 1200, 300, 500, 18000, 25500, NULL),
    ('mu_02a2b3c4d5e6', 'sess_7f3a9c2e1b4d', 'turn_0a1b2c3d', 1, 'main_turn', 'builtin:zai-coding-plan', 'glm-4.6', 'error',
     1795168807000, 1795168808000, 1000, NULL, 26000, 0, 0, 0, 0, 26000, 'CANARY-error'),
    ('mu_03a2b3c4d5e6', 'sess_7f3a9c2e1b4d', 'turn_0a1b2c3d', 2, 'main_turn', 'builtin:zai-coding-plan', 'glm-4.6', 'completed',
     1795168809000, 1795168815000, 6000, 700, 27000, 800, 0, 0, 24000, 27800, NULL),
    ('mu_04a2b3c4d5e6', 'sess_7f3a9c2e1b4d', 'turn_1a1b2c3d', 0, 'title', 'builtin:zai-coding-plan', 'glm-4.5-air', 'completed',
     1795168816000, 1795168817000, 1000, 300, 400, 20, 0, 0, 0, 420, NULL),
    ('mu_05a2b3c4d5e6', 'sess_9b8c7d6e5f4a', 'turn_2a1b2c3d', 0, 'main_turn', 'CANARY-provider-uuid', 'glm-4.6', 'completed',
     1795168900000, NULL, NULL, NULL, 3000, 150, 0, 0, 0, NULL, NULL),
    ('mu_06a2b3c4d5e6', 'sess_9b8c7d6e5f4a', 'turn_2a1b2c3d', 1, 'main_turn', 'CANARY-provider-uuid', 'glm-4.6', 'cancelled',
     1795168905000, 1795168906000, 1000, NULL, 3200, 10, 0, 0, 0, 3210, NULL);
INSERT INTO turn_usage VALUES ('sess_7f3a9c2e1b4d', 'turn_0a1b2c3d', 'CANARY-user-message', 'completed', 1795168801000, 1795168815000);
