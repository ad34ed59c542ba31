-- OpenClaw's agent database (agents/<agent>/agent/openclaw-agent.sqlite):
-- its session windows and the transcript entries, the very entries a
-- sessions/<id>.jsonl file holds, one row each. Written by hand; every raw
-- value carries CANARY.
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT,
  session_scope TEXT NOT NULL DEFAULT 'conversation',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;
INSERT INTO session_windows VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 'agent:main:CANARY-telegram', NULL, 'initial', 'conversation', 1795255200000, 1795255260000);
INSERT INTO session_windows VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 'agent:main:CANARY-discord', '7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 'reset', 'conversation', 1795341600000, 1795341660000);
-- A session with a tool call; its last entry carries no entry time (its
-- message does), and is dated by its row (created_at).
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 0, '{"type":"session","version":3,"id":"7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e","timestamp":"2026-11-21T10:00:00.000Z","cwd":"CANARY/.openclaw/workspace"}', 1795255200000);
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 1, '{"type":"model_change","id":"a1000001","parentId":null,"timestamp":"2026-11-21T10:00:00.100Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}', 1795255200100);
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 2, '{"type":"message","id":"a1000002","parentId":"a1000001","timestamp":"2026-11-21T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY list the files in my notes folder"}],"timestamp":1795255201000}}', 1795255201000);
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 3, '{"type":"message","id":"a1000003","parentId":"a1000002","timestamp":"2026-11-21T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY I will look."},{"type":"toolCall","id":"toolu_01Xq7Lm2Pz","name":"exec","arguments":{"command":"ls CANARY/notes"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":80,"cacheRead":3000,"cacheWrite":500,"totalTokens":4780,"cost":{"total":0.0123}},"stopReason":"toolUse","timestamp":1795255204000}}', 1795255204000);
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 4, '{"type":"message","id":"a1000004","parentId":"a1000003","timestamp":"2026-11-21T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01Xq7Lm2Pz","toolName":"exec","content":[{"type":"text","text":"CANARY-todo.md CANARY-ideas.md"}],"isError":false,"timestamp":1795255205000}}', 1795255205000);
INSERT INTO transcript_events VALUES ('7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e', 5, '{"type":"message","id":"a1000005","parentId":"a1000004","message":{"role":"assistant","content":[{"type":"text","text":"CANARY two files: todo and ideas."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":300,"output":40,"cacheRead":4200,"cacheWrite":0,"totalTokens":4540,"cost":{"total":0.0031}},"stopReason":"stop","timestamp":1795255207000}}', 1795255207000);
-- A reset session of another channel: OpenClaw's model snapshot names the
-- model; one response was written twice (counted once); one row is not
-- JSON (skipped, as ccusage skips it).
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 0, '{"type":"session","version":3,"id":"9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f","timestamp":"2026-11-22T10:00:00.000Z","cwd":"CANARY/.openclaw/workspace"}', 1795341600000);
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 1, '{"type":"custom","customType":"model-snapshot","id":"b2000001","parentId":null,"timestamp":"2026-11-22T10:00:00.100Z","data":{"timestamp":1795341600100,"provider":"openai-codex","modelApi":"openai-codex-responses","modelId":"gpt-5.2"}}', 1795341600100);
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 2, '{"type":"message","id":"b2000002","parentId":"b2000001","timestamp":"2026-11-22T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY remind me tomorrow at nine"}],"timestamp":1795341601000}}', 1795341601000);
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 3, 'CANARY this row is not JSON', 1795341601500);
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 4, '{"type":"message","id":"b2000003","parentId":"b2000002","timestamp":"2026-11-22T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY done, reminder set."}],"api":"openai-codex-responses","provider":"openai-codex","model":"gpt-5.2","usage":{"input":2100,"output":60,"cacheRead":6400,"cacheWrite":0,"totalTokens":8560,"cost":{"total":0}},"stopReason":"stop","timestamp":1795341603000}}', 1795341603000);
INSERT INTO transcript_events VALUES ('9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f', 5, '{"type":"message","id":"b2000003","parentId":"b2000002","timestamp":"2026-11-22T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY done, reminder set."}],"api":"openai-codex-responses","provider":"openai-codex","model":"gpt-5.2","usage":{"input":2100,"output":60,"cacheRead":6400,"cacheWrite":0,"totalTokens":8560,"cost":{"total":0}},"stopReason":"stop","timestamp":1795341603000}}', 1795341603000);
