package report

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
)

// WriteHTML writes one self-contained page: no network, no external font,
// inline SVG charts, the tables, a sessions table and a timeline per
// session. Everything shows with JavaScript off; the inline script only
// adds sorting and filtering to the sessions table.
func WriteHTML(w io.Writer, r *Report) error {
	models := modelColors(r)
	page := htmlPage{R: r, Tables: tables(r)}
	page.Charts = []chart{
		{ID: "chart-tokens", Title: "Tokens per day per model", SVG: template.HTML(tokensChart(r, models)), Legend: models},
		{ID: "chart-inputs", Title: "Context inputs per session", SVG: template.HTML(inputsChart(r)),
			Legend: []legendItem{{"context inputs loaded", palette[0]}, {"skill invocations", palette[2]}}},
		{ID: "chart-compactions", Title: "Compactions per day", SVG: template.HTML(compactionChart(r))},
	}
	for i, tl := range r.Timelines {
		page.Timelines = append(page.Timelines, timelineView{T: tl, N: i, SVG: template.HTML(waterfall(tl, i))})
	}
	return pageTmpl().Execute(w, page)
}

type htmlPage struct {
	R         *Report
	Tables    []*table
	Charts    []chart
	Timelines []timelineView
}

type chart struct {
	ID, Title string
	SVG       template.HTML
	Legend    []legendItem
}

type legendItem struct{ Label, Color string }

type timelineView struct {
	T   Timeline
	N   int
	SVG template.HTML
}

var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
	"#1f3b73", "#8c564b", "#17becf", "#bcbd22", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#393b79"}

func modelColors(r *Report) []legendItem {
	var out []legendItem
	for i, t := range r.Total.Tokens {
		out = append(out, legendItem{t.Model, palette[i%len(palette)]})
	}
	return out
}

func esc(s string) string { return html.EscapeString(s) }

const chartW, chartH, padL, padB = 1100, 220, 70, 40

// bars draws a bar chart of stacked series: labels along x, one stack of
// (value, color, title) per label.
func bars(labels []string, stacks [][]barPart, ariaLabel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, chartW, chartH, chartW, chartH, esc(ariaLabel))
	var top int64
	for _, st := range stacks {
		var s int64
		for _, p := range st {
			s += p.v
		}
		top = max(top, s)
	}
	plotW, plotH := float64(chartW-padL-40), float64(chartH-padB-10)
	fmt.Fprintf(&b, `<line x1="%d" y1="10" x2="%d" y2="%d" class="axis"/><line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, padL, padL, chartH-padB, padL, chartH-padB, chartW-10, chartH-padB)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="tick" text-anchor="end">%s</text><text x="%d" y="%d" class="tick" text-anchor="end">0</text>`, padL-6, num(top), padL-6, chartH-padB)
	if len(labels) == 0 || top == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="tick">no data</text></svg>`, padL+20, chartH/2)
		return b.String()
	}
	step := plotW / float64(len(labels))
	bw := max(1, step*0.8)
	every := max(1, len(labels)/8)
	for i, l := range labels {
		x := float64(padL) + float64(i)*step + (step-bw)/2
		y := float64(chartH - padB)
		for _, p := range stacks[i] {
			if p.v == 0 {
				continue
			}
			h := float64(p.v) / float64(top) * plotH
			y -= h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`, x, y, bw, h, p.color, esc(p.title))
		}
		if i%every == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`, x+bw/2, chartH-padB+16, esc(l))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

type barPart struct {
	v     int64
	color string
	title string
}

func tokensChart(r *Report, models []legendItem) string {
	color := map[string]string{}
	for _, m := range models {
		color[m.Label] = m.Color
	}
	var labels []string
	var stacks [][]barPart
	for _, d := range r.Days {
		if d.Day == noTime {
			continue
		}
		labels = append(labels, d.Day)
		var st []barPart
		for _, t := range d.Tokens {
			st = append(st, barPart{t.N, color[t.Key], fmt.Sprintf("%s %s: %s tokens", d.Day, t.Key, num(t.N))})
		}
		stacks = append(stacks, st)
	}
	return bars(labels, stacks, "tokens per day per model")
}

// maxChartSessions bounds the per-session chart to the most recent ones.
const maxChartSessions = 300

func inputsChart(r *Report) string {
	rows := r.Sessions
	if len(rows) > maxChartSessions {
		rows = rows[len(rows)-maxChartSessions:]
	}
	var labels []string
	var stacks [][]barPart
	for _, s := range rows {
		labels = append(labels, or(dayPart(s.Start), "-"))
		stacks = append(stacks, []barPart{
			{s.ContextInputs, palette[0], fmt.Sprintf("session %s: %d context inputs loaded", s.ID, s.ContextInputs)},
			{s.Skills, palette[2], fmt.Sprintf("session %s: %d skill invocations", s.ID, s.Skills)},
		})
	}
	return bars(labels, stacks, "context inputs per session")
}

func dayPart(stamp string) string {
	if len(stamp) >= 10 {
		return stamp[:10]
	}
	return stamp
}

func compactionChart(r *Report) string {
	var labels []string
	var stacks [][]barPart
	for _, d := range r.Days {
		if d.Day == noTime {
			continue
		}
		labels = append(labels, d.Day)
		stacks = append(stacks, []barPart{{d.Compactions, palette[1], fmt.Sprintf("%s: %d compactions in %d sessions", d.Day, d.Compactions, d.Sessions)}})
	}
	return bars(labels, stacks, "compactions per day")
}

func spanClass(sp Span) string {
	switch {
	case strings.HasPrefix(sp.Name, "invoke_agent") && sp.Depth > 0:
		return "subagent"
	case strings.HasPrefix(sp.Name, "invoke_agent"), sp.Depth == 0:
		return "agent"
	case strings.HasPrefix(sp.Name, "chat"):
		return "chat"
	case strings.HasPrefix(sp.Name, "execute_tool"):
		return "tool"
	}
	return "other"
}

func markerClass(name string) string {
	for _, p := range []struct{ prefix, class string }{
		{"context.audit_gap", "gap"}, {"context.input", "input"}, {"context.skill", "skill"}, {"skill.", "skill"}, {"mcp.", "mcp"},
		{"context.compaction", "compaction"}, {"subagent.", "sub"}, {"context.memory", "memory"}, {"memory.", "memory"},
	} {
		if strings.HasPrefix(name, p.prefix) {
			return p.class
		}
	}
	return "event"
}

// waterfall draws one session: a row per span, its context events as
// markers on the row of their span; each marker's title holds its
// attributes (hover) and links to the event's entry in the list (click).
func waterfall(tl Timeline, n int) string {
	const rowH, labelW, width = 18, 260, 1000
	rows := len(tl.Spans)
	if rows == 0 {
		rows = 1
	}
	h := rows*rowH + 30
	row := map[string]int{}
	for i, sp := range tl.Spans {
		row[sp.ID] = i
	}
	dur := float64(max(tl.DurationMS, 1))
	x := func(ms int64) float64 { return labelW + float64(ms)/dur*float64(width-labelW-20) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="waterfall" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="span waterfall">`, width, h, width, h)
	for i, sp := range tl.Spans {
		y := i*rowH + 4
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="span-label">%s</text>`, 4+sp.Depth*10, y+12, esc(sp.Name))
		w := max(x(sp.EndMS)-x(sp.StartMS), 1.5)
		cls := spanClass(sp)
		if sp.Error {
			cls += " error"
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" class="span %s"><title>%s: %s ms to %s ms</title></rect>`,
			x(sp.StartMS), y+2, w, rowH-6, cls, esc(sp.Name), num(sp.StartMS), num(sp.EndMS))
	}
	for j, m := range tl.Markers {
		r, ok := row[m.Span]
		if !ok {
			r = 0
		}
		cx, cy := x(m.AtMS), float64(r*rowH+4+rowH/2)
		var t strings.Builder
		t.WriteString(m.Name + " at " + num(m.AtMS) + " ms")
		for _, a := range m.Attrs {
			t.WriteString("\n" + a.Key + " = " + a.Value)
		}
		fmt.Fprintf(&b, `<a href="#ev-%d-%d"><path d="M%.1f %.1f l5 5 l-5 5 l-5 -5 z" class="marker %s"><title>%s</title></path></a>`,
			n, j, cx, cy-5, markerClass(m.Name), esc(t.String()))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="tick">0 ms</text><text x="%d" y="%d" class="tick" text-anchor="end">%s ms</text>`, labelW, h-6, width-20, h-6, num(tl.DurationMS))
	b.WriteString(`</svg>`)
	return b.String()
}

// pageTmpl is the page, parsed on first use: only the report command
// writes HTML, and parsing it at init was a fiftieth of every process.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"num":    num,
		"dur":    humanDuration,
		"short":  short,
		"join":   func(s []string) string { return strings.Join(s, ", ") },
		"itoa":   strconv.Itoa,
		"mclass": markerClass,
		"markerKinds": func() [][2]string {
			return [][2]string{{"input", "context input"}, {"skill", "skill"}, {"mcp", "MCP"}, {"compaction", "compaction"}, {"sub", "subagent"}, {"memory", "memory"}, {"gap", "audit gap"}, {"event", "other"}}
		},
		"numcol":  func(t *table, c int) bool { return t.Num[c] },
		"deref":   func(f *float64) float64 { return *f },
		"usd":     usd,
		"decimal": func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>convert report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1180px;padding:16px 24px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde1e8;padding-bottom:4px}
p.lead{color:#4a5263;margin:0 0 12px}
table{border-collapse:collapse;margin:4px 0 6px;font-variant-numeric:tabular-nums;display:block;overflow-x:auto;max-width:100%}
th,td{padding:3px 10px;border-bottom:1px solid #eceef2;text-align:left;vertical-align:top}
th{background:#f5f6f9;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}td:first-child{white-space:nowrap}
svg{max-width:100%;height:auto}
table.kv td:first-child{color:#4a5263;white-space:nowrap}
p.note{color:#596174;font-size:12.5px;margin:2px 0 8px}
.charts{display:flex;flex-direction:column;gap:10px}
figure{margin:0}figcaption{font-weight:600;margin:6px 0}
svg .axis{stroke:#9aa1ae;stroke-width:1}svg .tick{font-size:11px;fill:#596174}
.legend span{display:inline-block;margin-right:14px;font-size:12.5px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
#sessions-wrap{max-height:520px;overflow:auto;border:1px solid #eceef2}
#sessions th{position:sticky;top:0;cursor:default}
#sessions.js th{cursor:pointer}
.waterfall .span-label{font-size:11px;fill:#2c3342}
.span.agent{fill:#4e79a7}.span.subagent{fill:#76b7b2}.span.chat{fill:#edc948}.span.tool{fill:#59a14f}.span.other{fill:#bab0ac}.span.error{stroke:#e15759;stroke-width:2}
.marker{stroke:#1d2330;stroke-width:.6}.marker.input{fill:#2f6fd6}.marker.skill{fill:#2e9e4f}.marker.mcp{fill:#9b59b6}.marker.compaction{fill:#f28e2b}.marker.sub{fill:#17a2b8}.marker.memory{fill:#8d6e63}.marker.gap{fill:#e15759}.marker.event{fill:#888}
details{margin:6px 0;border:1px solid #eceef2;border-radius:4px;padding:4px 8px}
summary{cursor:pointer;font-weight:600}
ol.events{font-size:12.5px;margin:4px 0}ol.events li{margin:2px 0}ol.events li:target{background:#fff6d6}
code{font-size:12px}
</style>
</head>
<body>
<h1>convert report</h1>
<p class="lead">What entered the agents' runs: built from receipts only (digests, counts, buckets, categories), so nothing raw is in this page. {{num .R.Total.Sessions64}} sessions, grouped by {{.R.By}}.</p>
<div class="charts">
{{range .Charts}}<figure id="{{.ID}}"><figcaption>{{.Title}}</figcaption>{{.SVG}}{{if .Legend}}<div class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Label}}</span>{{end}}</div>{{end}}</figure>
{{end}}</div>
{{range .Tables}}<h2 id="{{.ID}}">{{.Title}}</h2>
{{if .Rows}}<table class="{{if .KV}}kv{{end}}" data-table="{{.ID}}">{{if not .KV}}<thead><tr>{{$t := .}}{{range $i, $h := .Head}}<th{{if numcol $t $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>{{end}}
<tbody>{{$t := .}}{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if numcol $t $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>{{end}}</tbody></table>
{{else}}<p class="note">(none)</p>{{end}}{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{end}}
<h2 id="sessions-title">Sessions</h2>
<p class="note">Click a column to sort{{if .R.Sessions}}; type to filter{{end}} (with JavaScript on).</p>
<div id="sessions-wrap"><table id="sessions"><thead><tr><th>session</th><th>agent</th><th>version</th><th>start</th><th class="num">duration</th><th>models</th><th class="num">input</th><th class="num">output</th><th class="num">cache read</th><th class="num">cache write</th><th class="num">reasoning</th>{{if .R.Prices}}<th class="num">cost (USD)</th>{{end}}<th class="num">context inputs</th><th class="num">skills</th><th class="num">MCP calls</th><th class="num">compactions</th><th class="num">subagents</th><th class="num">skipped lines</th></tr></thead>
<tbody>{{range .R.Sessions}}<tr><td><code>{{.ID}}</code></td><td>{{.Agent}}</td><td>{{join .Versions}}</td><td>{{.Start}}</td><td class="num" data-v="{{.DurationMS}}">{{dur .DurationMS}}</td><td>{{join .Models}}</td><td class="num" data-v="{{.InputTokens}}">{{num .InputTokens}}</td><td class="num" data-v="{{.OutputTokens}}">{{num .OutputTokens}}</td><td class="num" data-v="{{.CacheRead}}">{{num .CacheRead}}</td><td class="num" data-v="{{.CacheWrite}}">{{num .CacheWrite}}</td><td class="num" data-v="{{.Reasoning}}">{{num .Reasoning}}</td>{{if .CostUSD}}<td class="num" data-v="{{decimal (deref .CostUSD)}}">{{usd (deref .CostUSD) .Unpriced}}</td>{{end}}<td class="num" data-v="{{.ContextInputs}}">{{num .ContextInputs}}</td><td class="num" data-v="{{.Skills}}">{{num .Skills}}</td><td class="num" data-v="{{.MCPCalls}}">{{num .MCPCalls}}</td><td class="num" data-v="{{.Compactions}}">{{num .Compactions}}</td><td class="num" data-v="{{.Subagents}}">{{num .Subagents}}</td><td class="num" data-v="{{.Skipped}}">{{num .Skipped}}</td></tr>
{{end}}</tbody></table></div>
<h2 id="timelines">Session timelines</h2>
<p class="note">Bars: spans (agent, chat, tool, subagent); diamonds: context events on the span they belong to. Hover a diamond for its attributes, click it for its entry below.{{if .Timelines}} {{len .Timelines}} most recent sessions.{{end}}</p>
<div class="legend">{{range $k := markerKinds}}<span><svg width="12" height="12" viewBox="0 0 12 12"><path d="M6 1 l5 5 l-5 5 l-5 -5 z" class="marker {{index $k 0}}"/></svg> {{index $k 1}}</span>{{end}}<span><i style="background:#4e79a7"></i>agent</span><span><i style="background:#76b7b2"></i>subagent</span><span><i style="background:#edc948"></i>chat</span><span><i style="background:#59a14f"></i>tool</span></div>
{{range .Timelines}}<details class="timeline"{{if eq .N 0}} open{{end}}><summary>{{.T.Session}} · {{.T.Agent}} · {{.T.Start}} · {{len .T.Spans}} spans, {{len .T.Markers}} events</summary>
{{.SVG}}{{if .T.MoreSpans}}<p class="note">{{.T.MoreSpans}} more spans not drawn.</p>{{end}}
<details><summary>events and their attributes</summary><ol class="events">{{$n := .N}}{{range $j, $m := .T.Markers}}<li id="ev-{{$n}}-{{$j}}"><b>{{$m.Name}}</b> at {{num $m.AtMS}} ms{{range $m.Attrs}}<br><code>{{.Key}}</code> = {{.Value}}{{end}}</li>{{end}}</ol></details>
</details>
{{else}}<p class="note">(no timelines)</p>{{end}}
<script>
(function(){
  var t=document.getElementById('sessions'); if(!t) return;
  t.className='js';
  var body=t.tBodies[0], rows=Array.prototype.slice.call(body.rows);
  var f=document.createElement('input'); f.type='search'; f.placeholder='filter sessions'; f.id='session-filter';
  t.parentNode.parentNode.insertBefore(f,t.parentNode);
  f.addEventListener('input',function(){var q=f.value.toLowerCase();rows.forEach(function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';});});
  Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){
    var asc=true;
    th.addEventListener('click',function(){
      rows.sort(function(a,b){
        var x=a.cells[i],y=b.cells[i],p=x.getAttribute('data-v'),q=y.getAttribute('data-v');
        var c=(p!==null&&q!==null)?(Number(p)-Number(q)):x.textContent.localeCompare(y.textContent);
        return asc?c:-c;});
      asc=!asc; rows.forEach(function(r){body.appendChild(r);});
    });
  });
})();
</script>
</body>
</html>
`))
})

// humanDuration writes milliseconds as a person reads a duration: "0 s"
// under a second, then "45 s", "12 min 5 s", "1 h 10 min", "2 d 3 h" (the
// two largest units; the exact figure stays in the cell's data-v and the
// JSON's duration_ms).
func humanDuration(ms int64) string {
	s := ms / 1000
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + " s"
	case s < 3600:
		return two(s/60, "min", s%60, "s")
	case s < 86400:
		return two(s/3600, "h", s%3600/60, "min")
	}
	return two(s/86400, "d", s%86400/3600, "h")
}

func two(a int64, ua string, b int64, ub string) string {
	out := strconv.FormatInt(a, 10) + " " + ua
	if b > 0 {
		out += " " + strconv.FormatInt(b, 10) + " " + ub
	}
	return out
}
