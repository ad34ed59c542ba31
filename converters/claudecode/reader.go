package claudecode

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// claude_code reads native Claude Code transcripts (~/.claude/projects/<enc>/
// <session>.jsonl) with their subagent transcripts, in every layout from 1.0
// to 2.1 (docs/converters.md). It writes what the transcript
// evidences about context (instruction and memory loads, skills, deferred
// MCP tools and tool search, MCP calls, compaction, subagents, token usage)
// and a trace in the OpenTelemetry GenAI shape: an invoke_agent root, chat
// spans per model response, execute_tool spans per tool call, and subagents
// as invoke_agent spans under the tool call that spawned them.
//
// Message text, thinking, tool inputs and results, paths, cwd, branches and
// URLs are raw: hashed or measured, never copied. Built-in tool names pass
// through; MCP server and tool names, skill names and subagent types are
// hashed unless --reveal names.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "claude_code",
		Doc:         "Claude Code transcripts (1.0-2.1) with subagents: context loads, skills, MCP, compaction, tokens",
		SpanName:    "invoke_agent",
		TypeField:   "type",
		TimeField:   "timestamp",
		Types:       claudeTypes,
		Hints:       []string{"uuid", "parentUuid", "sessionId"}, // readers branch: what detection needs to tell a log of another format with Claude's type names apart
		OpenTypes:   true,
		PassThrough: claudePass,
		Labels:      claudeLabels,
		Events: []string{
			"context.input.loaded", "context.audit_gap.recorded", "context.skill.invoked", "context.skill.listing.loaded",
			"context.memory_file.accessed", "mcp.tool_index.loaded", "mcp.tool_search.performed",
			"mcp.tool_definition.loaded", "mcp.tool_call.completed", "context.compaction.started",
			"context.compaction.summary_loaded", "subagent.spawned", "subagent.result.returned",
			"gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newClaude(env) },
		Native: &converters.Format{
			Type:      claudeType,
			Layout:    claudeLayout,
			Locations: claudeLocations,
			Seeds:     []string{"samples/claude_code"},
			IDs:       claudeIDs,
			Models:    claudeModels,
		},
	})
}

// claudeType is a record's type, for a record in Claude Code's shape: every
// line it writes names its session, its own uuid or what it points at
// (sessionId, uuid, leafUuid, messageId, agentId). A "type" alone is not
// enough: other agents' logs have "type":"user" lines too, and detection
// must not claim them.
func claudeType(r converters.Record) view.Value {
	t := r.Get("type")
	if !t.IsString() {
		return view.Value{}
	}
	// Qwen Code's chat records share Claude's type names, uuid and
	// sessionId, but hold a Gemini API Content (message.parts, no content)
	// or Qwen's own fields: they are Qwen's (converters/qwencode, whose
	// IsRecord this is: a reader imports no other reader), never Claude's.
	if m := r.Get("message"); m.IsObject() && m.Get("parts").IsArray() && !m.Get("content").Exists() ||
		r.Get("systemPayload").IsObject() || r.Get("usageMetadata").IsObject() || r.Get("toolCallResult").IsObject() {
		return view.Value{}
	}
	for _, k := range claudeShapeKeys {
		if r.Get(k).Exists() {
			return t
		}
	}
	// A stream-json line (claude -p) names its session session_id, as
	// Cursor's stream does: it is Claude's only with the field Claude's
	// stream messages carry and Cursor's do not.
	if r.Get("session_id").Exists() && r.Get("parent_tool_use_id").Exists() {
		return t
	}
	return view.Value{}
}

// claudeShapeKeys are the fields of which every Claude Code transcript
// record has one (a stream-json line has session_id and
// parent_tool_use_id instead).
var claudeShapeKeys = []string{"sessionId", "uuid", "leafUuid", "messageId", "agentId"}

// claudeTypes are the record types this converter knows; detection scores
// inputs by them. Others are counted (by digest) and otherwise ignored.
var claudeTypes = []string{
	"user", "assistant", "system", "attachment", "progress", "summary", "file-history-snapshot",
	"file-history-delta", "queue-operation", "permission-mode", "mode", "last-prompt", "ai-title",
	"custom-title", "agent-name", "agent-setting", "pr-link", "frame-link", "worktree-state", "relocated",
	"bridge-session", "atis-latch", "saved_hook_context", "fork-context-ref", "started", "result",
}

// claudePass are the structural fields whose token values may appear in
// output: ids, enums, versions, model names, built-in tool names.
var claudePass = leak.Paths{
	// Token counts, durations and counters: numbers the reader sums or copies.
	"*.input_tokens": leak.Count, "*.output_tokens": leak.Count, "*.cache_read_input_tokens": leak.Count,
	"*.cache_creation_input_tokens": leak.Count, "*.ephemeral_5m_input_tokens": leak.Count,
	"*.ephemeral_1h_input_tokens": leak.Count, "*.web_search_requests": leak.Count,
	"message.usage.iterations.#.model": leak.Model, "*.web_fetch_requests": leak.Count,
	"*.thinking_tokens": leak.Count, "*.preTokens": leak.Count, "*.postTokens": leak.Count, "*.totalTokens": leak.Count,
	"*.totalDurationMs": leak.Count, "*.totalToolUseCount": leak.Count, "*.durationMs": leak.Count, "*.hookCount": leak.Count,
	"type": leak.Label, "uuid": leak.UUID, "parentUuid": leak.UUID, "logicalParentUuid": leak.UUID, "sessionId": leak.IDOrUUID, "session_id": leak.IDOrUUID,
	"agentId": leak.ID, "timestamp": leak.Time, "version": leak.Version, "userType": leak.Label, "entrypoint": leak.Label, "requestId": leak.ID,
	"subtype": leak.Label, "level": leak.Label, "toolUseID": leak.IDOrUUID, "sourceToolUseID": leak.IDOrUUID, "sourceToolAssistantUUID": leak.UUID,
	"permissionMode": leak.Label, "mode": leak.Label, "operation": leak.Label, "promptId": leak.IDOrUUID, "leafUuid": leak.UUID, "messageId": leak.IDOrUUID,
	"message.id": leak.ID, "message.model": leak.Model, "message.role": leak.Label, "message.type": leak.Label, "message.stop_reason": leak.Label,
	"message.content.#.type": leak.Label, "message.content.#.id": leak.ID, "message.content.#.name": leak.Name,
	"message.content.#.tool_use_id": leak.ID, "message.content.#.content.#.type": leak.Label,
	"attachment.type": leak.Label, "attachment.hookEvent": leak.Label, "attachment.hookName": leak.Label, "attachment.toolUseID": leak.IDOrUUID,
	"compactMetadata.trigger": leak.Label, "microcompactMetadata.trigger": leak.Label, "data.type": leak.Label, "data.hookEvent": leak.Label,
	"toolUseResult.agentId": leak.ID, "toolUseResult.status": leak.Label, "toolUseResult.type": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"attachment.addedNames.#": leak.Name, "attachment.skills.#.name": leak.Name, "agentType": leak.Name,
	"message.content.#.input.skill": leak.Name, "message.content.#.input.subagent_type": leak.Name,
	"message.content.#.content.#.tool_name": leak.Name,
	// An MCP call's progress records repeat its server and tool, the two
	// halves of the mcp__server__tool name --reveal names writes.
	"data.serverName": leak.Name, "data.toolName": leak.Name,
	// A subagent's response as its parent's agent_progress record repeats
	// it (progress.go): counted when no transcript holds it.
	"data.message.message.id": leak.ID, "data.message.message.model": leak.Model, "data.message.requestId": leak.ID,
	"data.message.message.usage.iterations.#.model": leak.Model,
}

// claudeLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var claudeLabels = []string{
	"function",
	"Notification", "PermissionRequest", "PostToolUse", "PostToolUse:Edit", "PostToolUseFailure", "PreCompact",
	"PreToolUse", "SessionEnd", "SessionStart", "SessionStart:clear", "SessionStart:compact",
	"SessionStart:resume", "SessionStart:startup", "Stop", "SubagentStart", "SubagentStop", "UserPromptSubmit",
	"acceptEdits", "advisor_tool_result", "agent_progress", "api_error", "async_launched", "bash_progress",
	"block", "bypassPermissions", "claude-desktop", "claude-vscode", "cli", "compact_boundary", "default",
	"dequeue", "dontAsk", "end_turn", "enqueue", "error", "external", "hook_progress", "info", "informational",
	"internal", "local_command", "max_tokens", "mcp_progress", "microcompact_boundary",
	"model_context_window_exceeded", "normal", "pause_turn", "plan", "popAll", "query_update", "refusal",
	"remove", "sdk-cli", "sdk-py", "sdk-ts", "search_results_received", "standard", "stop_hook_summary",
	"stop_sequence", "suggestion", "tool_use", "turn_duration", "update", "waiting_for_task", "warning",
}

// claudeBuiltinTools are Claude Code's own tool names: public, so they pass
// through. Any other tool name (MCP, plugins) is hashed.
var claudeBuiltinTools = map[string]bool{
	"Agent": true, "Task": true, "Bash": true, "BashOutput": true, "KillBash": true, "KillShell": true, "Edit": true,
	"MultiEdit": true, "Write": true, "Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookEdit": true,
	"NotebookRead": true, "WebFetch": true, "WebSearch": true, "TodoWrite": true, "TodoRead": true, "ExitPlanMode": true,
	"Skill": true, "SlashCommand": true, "ToolSearch": true, "SendMessage": true, "TaskCreate": true, "TaskUpdate": true,
	"TaskList": true, "TaskGet": true, "TaskOutput": true, "TaskStop": true, "AskUserQuestion": true,
	"ListMcpResourcesTool": true, "ReadMcpResourceTool": true, "EnterPlanMode": true, "Monitor": true,
	// 2.1.167-2.1.237: workflows, wake-ups and cron, teams, structured
	// output, worktrees.
	"Workflow": true, "ScheduleWakeup": true, "CronCreate": true, "CronDelete": true, "CronList": true,
	"TeamCreate": true, "TeamDelete": true, "StructuredOutput": true, "EnterWorktree": true, "ExitWorktree": true,
}

// claudeBuiltinToolList is claudeBuiltinTools as a word list
// (view.Text.Word): a built-in name read from a line is kept as the list's
// own string, never as a view of the line or a copy of it.
var claudeBuiltinToolList = slices.Sorted(maps.Keys(claudeBuiltinTools))

// claudeBuiltinCommands are Claude Code's own slash commands (public names).
var claudeBuiltinCommands = map[string]bool{
	"/init": true, "/clear": true, "/compact": true, "/memory": true, "/model": true, "/exit": true, "/help": true,
	"/cost": true, "/config": true, "/review": true, "/resume": true, "/mcp": true, "/agents": true, "/hooks": true,
	"/permissions": true, "/status": true, "/context": true, "/doctor": true, "/login": true, "/logout": true,
	"/add-dir": true, "/bug": true, "/pr-comments": true, "/vim": true, "/terminal-setup": true, "/rewind": true,
}

// claudeBuiltinCommandList is claudeBuiltinCommands as a word list
// (claudeBuiltinCommand).
var claudeBuiltinCommandList = slices.Sorted(maps.Keys(claudeBuiltinCommands))

// claudeAgent is one agent of the session: the main one (key "") or a
// subagent (key "agent:<id>").
type claudeAgent struct {
	key       string
	depth     int
	spanIndex int   // index in out.Spans; -1 for the root
	prompted  int64 // time of the agent's last user record: its next chat span starts there
}

// claudeTool is a tool call waiting for its result.
type claudeTool struct {
	key, name, agent string
	span             int
	line             int
	input            view.Owned // a copy, kept only when toolResult reads it
	inputSize        int
	inputDigest      string
	mcpServer        string // raw MCP server and tool names, for hashing only
	mcpTool          string
	initWrite        bool
	done             bool // its result was seen
}

// claudeMessage is the chat span of a response, the agent that made it,
// and where its span and usage are (-1: none yet). It is one map of
// responses, not three (by id, by span key, usage by span key): a long
// session has a response per few lines, and each map entry is kept until
// End.
type claudeMessage struct {
	key, agent  string
	request     string // KeyPart of the request id its first row names, "" for none
	span, usage int32
}

// claudeModel is a model as read, as written, and its chat span's name,
// kept from one response to the next: a session's responses name one model
// or a few, so every span shares these strings instead of owning a copy.
type claudeModel struct{ raw, out, span string }

// claudeUsage is the usage of one model response, de-duplicated (its
// Responses is 1), or a model's total.
type claudeUsage struct {
	native.Usage
	model                      string
	span                       int
	cacheWrite5m, cacheWrite1h int64
	web                        int64 // server_tool_use.web_search_requests
	// advisors are the advisor inferences inside the response (usage
	// iterations of type advisor_message), each under its own model.
	advisors []claudeUsage
}

type claudeState struct {
	native.Base

	file     int
	fileRel  string
	fileMeta view.Owned   // the file's sidecar (a copy: it is read after StartFile returns)
	agent    *claudeAgent // agent of the current file (companions), nil before its first record
	inline   *claudeAgent // 1.0.x inline sidechain in progress in the main file

	agents      map[string]*claudeAgent
	tools       map[string]*claudeTool
	usages      []claudeUsage     // per response with usage, in order (largest output wins)
	model       claudeModel       // the last response's model
	agentTool   map[string]string // subagent id -> spawning tool key
	promptTool  map[string]string // Task/Agent prompt digest -> tool key
	pendingTask []string          // Task tool keys without a subagent yet (inline layout)

	compaction  int
	lastCommand string // the last slash command if a built-in (the list's word), "" after one of the user's own
	command     int    // index in out.Events of the last built-in command's event, -1 when its expansion came or none is open

	messages    map[string]claudeMessage // by message.id: a response's rows, and its replays, are one message
	parentUUIDs native.IDSet             // record uuids of the main file: companions that replay them are not read again
	counts      map[string]int64
	gapDone     bool
	skills      map[string]bool // skills invoked so far (raw names, never written)
	postTokens  int64           // postTokens of the last compact boundary, -1 when unknown

	// progress are the subagent responses the parent's agent_progress
	// records carry, by message id, in order of first appearance; End
	// counts those no transcript row holds (progress.go).
	progress      map[string]*claudeProgress
	progressOrder []string

	// A workflow run's session (its main file the run's journal).
	workflow      bool
	journalAgents map[string]bool // agent ids the journal names (copies, never written)
	parentSession string          // the session that ran the workflow, as written
}

func newClaude(env converters.Env) *claudeState {
	return &claudeState{
		Base:      native.New(env, claudeTypes),
		agents:    map[string]*claudeAgent{"": {key: "", spanIndex: -1}},
		tools:     map[string]*claudeTool{},
		agentTool: map[string]string{}, promptTool: map[string]string{},
		counts: map[string]int64{},
		skills: map[string]bool{}, postTokens: -1, journalAgents: map[string]bool{},
		command: -1, messages: map[string]claudeMessage{},
	}
}

func (c *claudeState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.file, c.fileRel, c.fileMeta, c.agent, c.inline = f.Index, f.Rel, f.Meta.Own(), nil, nil
	return nil
}

func (c *claudeState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if v := r.Get("version"); v.IsString() {
		c.SeeVersion(v.Str())
	}
	if c.Session == "" && r.File == 0 {
		if sid := r.Get("sessionId"); sid.IsString() && !sid.Str().Empty() {
			c.Session = c.Pass(leak.IDOrUUID, sid.Str())
		}
	}
	if r.File == 0 && !c.WorkDirSeen() {
		c.SeeWorkDir(r.Get("cwd").Str())
	}
	if r.File == 0 && (r.Type == "started" || r.Type == "result") && !r.Get("sessionId").Exists() {
		c.journal(r)
		return nil
	}
	if c.workflow && r.File > 0 && c.parentSession == "" {
		if sid := r.Get("sessionId"); sid.IsString() && !sid.Str().Empty() {
			c.parentSession = c.Pass(leak.ID, sid.Str())
		}
	}
	if !c.gapDone && r.File == 0 && (r.Type == "user" || r.Type == "assistant") {
		c.gapDone = true
		c.Emit(r, "", "context.audit_gap.recorded", events.AuditGap("root_instruction_files_not_logged",
			"claude_md_claude_local_md_and_memory_md_load_at_session_start_without_a_record"))
	}
	if c.replayed(r) {
		return nil
	}
	agent := c.agentFor(r)
	switch r.Type {
	case "assistant":
		c.assistant(r, agent)
	case "user":
		c.user(r, agent)
		if r.NS > 0 {
			agent.prompted = r.NS
		}
	case "system":
		c.system(r, agent)
	case "attachment":
		c.attachment(r, agent)
	case "progress":
		switch dt := r.Get("data.type").Str(); {
		case dt.Is("hook_progress"):
			c.counts["hooks"]++
		case dt.Is("agent_progress"):
			c.agentProgress(r)
		}
	}
	return nil
}

// replayed reports whether a companion's record is a copy of one of the
// main file's (same uuid): 2.1.2xx subagent and fork transcripts begin by
// replaying the parent's history, which was read with the parent. Replays
// are counted, never read twice (their tokens and tool calls are the
// parent's).
func (c *claudeState) replayed(r converters.Record) bool {
	id := r.Get("uuid").Str()
	if id.Empty() {
		return false
	}
	if r.File == 0 {
		// Kept only for companions to be checked against: a session with
		// none (most, and the longest) keeps no uuid of its records. Add
		// keeps a UUID as its 16 bytes and anything else as a copy, never
		// the line's string, so a uuid costs no copy of its own here.
		if c.Env.Companions > 0 {
			id.Check(func(s string) bool { c.parentUUIDs.Add(s); return true })
		}
		return false
	}
	if id.Check(c.parentUUIDs.Has) {
		c.counts["replayed_records"]++
		return true
	}
	return false
}

// agentFor returns the agent a record belongs to, starting subagent spans as
// they appear: companion files are subagents; in the main file, a
// sidechain record with no parent starts an inline (1.0.x) subagent.
func (c *claudeState) agentFor(r converters.Record) *claudeAgent {
	if r.File > 0 {
		if c.agent == nil {
			id := r.Get("agentId").Str()
			if id.Empty() {
				id = view.Borrow(claudeAgentFileID(c.fileRel)) // a string of ours: a Text reads it like the line's
			}
			c.agent = c.startAgent(r, "agent:"+c.fileRelKey(id), id, c.fileMeta.Value())
		}
		c.touch(c.agent.spanIndex, r.NS)
		return c.agent
	}
	if !r.Get("isSidechain").Bool() {
		c.inline = nil
		return c.agents[""]
	}
	if c.inline == nil || r.Get("parentUuid").Type() == view.Null && r.Type == "user" {
		c.inline = c.startAgent(r, "agent:inline:"+c.KeyPart(r.Get("uuid").Str())+":"+strconv.Itoa(r.Line), view.Text{}, view.Value{})
	}
	c.touch(c.inline.spanIndex, r.NS)
	return c.inline
}

// fileRelKey keeps agent keys unique even when two files reuse an agent id.
func (c *claudeState) fileRelKey(id view.Text) string {
	key := c.Pass(leak.ID, id)
	if _, dup := c.agents["agent:"+key]; dup {
		return key + ":" + strconv.Itoa(c.file)
	}
	return key
}

// startAgent opens a subagent span under the tool call that spawned it:
// found through the sidecar's toolUseId, the spawning call's result agentId,
// the prompt the call passed, or (inline) the oldest Task call still open.
func (c *claudeState) startAgent(r converters.Record, key string, id view.Text, meta view.Value) *claudeAgent {
	parent, link := c.spawner(r, id, meta)
	depth := 1
	if tool := c.tools[parent]; tool != nil {
		depth = c.agents[tool.agent].depth + 1
	}
	if d := meta.Get("spawnDepth"); d.IsNumber() {
		if n := c.Count(d); n > 0 {
			depth = int(n)
		}
	}
	a := &claudeAgent{key: key, depth: depth, spanIndex: len(c.Out.Spans)}
	c.agents[key] = a
	attrs := append(events.AgentSpan("claude-code-subagent"),
		receipt.Attr{Key: "subagent.depth", Value: receipt.Computed(int64(depth))},
		receipt.Attr{Key: "subagent.link", Value: receipt.S(link)})
	if !id.Empty() {
		attrs = append(attrs, receipt.Attr{Key: "subagent.id", Value: receipt.S(c.Pass(leak.ID, id))})
	}
	if t := meta.Get("agentType"); t.IsString() {
		attrs = append(attrs, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(t.Str()))})
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1,
		Start: r.NS, End: r.NS, Attrs: attrs})
	ev := events.SubagentSpawned(link, int64(depth))
	if t := meta.Get("agentType"); t.IsString() {
		ev = append(ev, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(t.Str()))})
	}
	if d := meta.Get("description"); d.IsString() {
		ev = append(ev, receipt.Attr{Key: "subagent.description_hash", Value: receipt.S(d.Str().Digest(c.Hasher))})
	}
	if p := c.firstPromptDigest(r); p != "" {
		ev = append(ev, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p)})
	}
	ev = append(ev, events.TranscriptLayout(c.layoutOf(r)))
	c.Emit(r, key, "subagent.spawned", ev)
	c.counts["subagents"]++
	return a
}

// spawner finds the tool call that spawned a subagent (its span key, ""
// when none is found) and how: the sidecar's toolUseId, the agent id a
// result named, the prompt digest, or (inline 1.0.x) the order of calls.
func (c *claudeState) spawner(r converters.Record, id view.Text, meta view.Value) (parent, link string) {
	if t := meta.Get("toolUseId").Str(); !t.Empty() {
		if tool := c.tools["tool:"+c.KeyPart(t)]; tool != nil {
			return tool.key, "sidecar_tool_use_id"
		}
	}
	if t, ok := view.Lookup(c.agentTool, id); ok && !id.Empty() {
		return t, "result_agent_id"
	}
	if c.workflow && !id.Empty() && id.Check(func(s string) bool { return c.journalAgents[s] }) {
		return "", "workflow_journal"
	}
	// A forked subagent (/fork, 2.1.2xx: isFork, agentType fork, a name,
	// no toolUseId; its agent id a slug of the prompt, written as a
	// digest) copies the parent's context and is spawned by no tool call.
	if meta.Get("isFork").Bool() || meta.Get("agentType").Str().Is("fork") {
		return "", "forked_from_parent"
	}
	if t, ok := c.promptTool[c.firstPromptDigest(r)]; ok {
		return t, "prompt_digest"
	}
	if r.File == 0 && len(c.pendingTask) > 0 {
		parent = c.pendingTask[0]
		c.pendingTask = c.pendingTask[1:]
		return parent, "inline_order"
	}
	return "", "unlinked"
}

// layoutOf says where the subagent of a record keeps its records.
func (c *claudeState) layoutOf(r converters.Record) string {
	switch {
	case r.File > 0 && c.workflow:
		return "workflow_run_dir"
	case r.File > 0 && claudeSubagentsDir(c.fileRel):
		return "session_subagents_dir"
	case r.File > 0:
		return "sibling_agent_file"
	}
	return "sidechain_inline"
}

// firstPromptDigest is the digest of a record's user text: how a subagent's
// first message is matched with the prompt of the call that spawned it.
func (c *claudeState) firstPromptDigest(r converters.Record) string {
	if r.Type != "user" {
		return ""
	}
	content := r.Get("message.content")
	if content.IsString() {
		return content.Str().Digest(c.Hasher)
	}
	text, n := claudeTextBlocks(content)
	if n == 0 {
		return ""
	}
	return text.Digest(c.Hasher)
}

// touch stretches a span (an index in Spans; -1 is the root) to cover a
// record time.
func (c *claudeState) touch(index int, ns int64) {
	if index >= 0 {
		c.Out.Spans[index].Cover(ns)
	}
}

func (c *claudeState) End(out *converters.Output) error {
	c.Out = out
	c.progressResponses()
	totals := map[string]*claudeUsage{}
	var models []string
	add := func(u claudeUsage) {
		t := totals[u.model]
		if t == nil {
			t = &claudeUsage{model: u.model}
			totals[u.model] = t
			models = append(models, u.model)
		}
		t.Add(u.Usage)
		t.cacheWrite5m += u.cacheWrite5m
		t.cacheWrite1h += u.cacheWrite1h
		t.web += u.web
	}
	for _, u := range c.usages {
		// Anthropic's input_tokens leaves out cache reads and writes; the
		// trace's counts them, as the GenAI conventions do (receipts keep
		// Anthropic's figures). A response's span counts the advisor
		// inferences inside it too.
		chat := u.Usage
		for _, a := range u.advisors {
			chat.Add(a.Usage)
			add(a)
		}
		sp := &out.Spans[u.span]
		sp.Attrs = append(sp.Attrs, chat.CacheIn().Chat()...)
		add(u)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		t := totals[m]
		all.Add(t.Usage)
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(c.Pass(leak.Model, view.Borrow(m)), t.Tokens(), receipt.Attrs{
			{Key: "gen_ai.usage.cache_creation.ephemeral_5m_input_tokens", Value: receipt.Copied(t.cacheWrite5m)},
			{Key: "gen_ai.usage.cache_creation.ephemeral_1h_input_tokens", Value: receipt.Copied(t.cacheWrite1h)},
			{Key: "gen_ai.usage.web_search_requests", Value: receipt.Computed(t.web)},
			{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)},
		}, "message_id_and_request_id_largest_output", "session_with_subagents")})
	}
	c.RootIdentity(out, "claude-code")
	all.CacheIn().Root(out)
	for _, k := range []string{"user_prompts", "tool_calls", "subagents", "hooks", "compactions", "api_errors"} {
		out.Span.Set("claude_code."+k+".count", receipt.Computed(c.counts[k]))
	}
	for _, k := range []string{"builtin_commands", "replayed_records", "replayed_messages", "agent_progress_responses"} {
		if n := c.counts[k]; n > 0 {
			out.Span.Set("claude_code."+k+".count", receipt.Computed(n))
		}
	}
	if c.workflow {
		out.Span.Set("claude_code.workflow.agents_started.count", receipt.Computed(c.counts["workflow_started"]))
		out.Span.Set("claude_code.workflow.agent_results.count", receipt.Computed(c.counts["workflow_results"]))
		if c.parentSession != "" {
			out.Span.Set("claude_code.workflow.parent_session.id", receipt.S(c.parentSession))
		}
	}
	if open := c.openTools(); open > 0 {
		out.Span.Set("claude_code.tool_calls.without_result", receipt.Computed(open))
	}
	c.Summarize(out)
	return nil
}

// openTools counts tool calls whose result never came (a session still
// being written, or a crash).
func (c *claudeState) openTools() int64 {
	var n int64
	for _, t := range c.tools {
		if !t.done {
			n++
		}
	}
	return n
}

// journal reads a workflow run's journal record: started (an agent of the
// run began) or result (its structured result, which the run's script
// receives; the run's return value reaches the parent session as a task
// notification). A result's digest and size are written, never its
// content.
func (c *claudeState) journal(r converters.Record) {
	c.workflow = true
	if id := r.Get("agentId").Str(); !id.Empty() {
		c.journalAgents[id.Own()] = true
	}
	if r.Type == "started" {
		c.counts["workflow_started"]++
		return
	}
	c.counts["workflow_results"]++
	res := r.Get("result")
	status := "success"
	if !res.Exists() || res.Type() == view.Null {
		status = "error"
	}
	a := events.SubagentReturned(res.Digest(c.Hasher), res.RawLen(), status, "workflow_script")
	a = append(a, events.RawSummaryNotRecorded)
	c.Emit(r, "", "subagent.result.returned", a)
}
