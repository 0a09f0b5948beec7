package docscheck

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
)

// reFileBlock matches a fenced block whose info string names the file it
// belongs in: ```json file=.mcp.json
var reFileBlock = regexp.MustCompile("(?ms)^```([a-z]+) file=(\\S+)\\n(.*?)^```\\s*$")

// serverTools lists the tools `darwin-memo mcp` offers, asked over the
// protocol.
func serverTools(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(mcpserver.Options{Store: filepath.Join(t.TempDir(), "none.json")}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docscheck", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// mcpEntry is one server in an MCP client configuration file.
type mcpEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Tools   []string `json:"tools"`
}

// runsServer reports whether an entry starts `darwin-memo mcp`, installed or
// through go run.
func (e mcpEntry) runsServer() bool {
	switch e.Command {
	case "darwin-memo":
		return len(e.Args) > 0 && e.Args[0] == "mcp"
	case "go":
		return len(e.Args) >= 3 && e.Args[0] == "run" && strings.HasSuffix(e.Args[1], "cmd/darwin-memo") && e.Args[2] == "mcp"
	}
	return false
}

// checkMCPConfig checks one client configuration: the top-level key its
// client reads (mcpServers or servers), a darwin-memo entry that starts the
// server, the transport type that client accepts, and tool names the server
// has.
func checkMCPConfig(file, body, topKey string, types []string, needTools bool, tools []string) []string {
	var cfg map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &cfg); err != nil {
		return []string{file + ": not valid JSON: " + err.Error()}
	}
	var problems []string
	for k := range cfg {
		if k != topKey {
			problems = append(problems, file+": unexpected top-level key "+k+"; this client reads "+topKey)
		}
	}
	raw, ok := cfg[topKey]["darwin-memo"]
	if !ok {
		return append(problems, file+": no "+topKey+".darwin-memo entry")
	}
	var e mcpEntry
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return append(problems, file+": darwin-memo entry: "+err.Error())
	}
	if !e.runsServer() {
		problems = append(problems, file+": the entry does not start `darwin-memo mcp`")
	}
	if !slices.Contains(types, e.Type) {
		problems = append(problems, file+": type "+e.Type+" is not one this client accepts: "+strings.Join(types, ", "))
	}
	if needTools && len(e.Tools) == 0 {
		problems = append(problems, file+": this client needs a tools list")
	}
	for _, tool := range e.Tools {
		if tool != "*" && !slices.Contains(tools, tool) {
			problems = append(problems, file+": tool "+tool+" is not offered by darwin-memo mcp")
		}
	}
	return problems
}

func TestAgentSetupSnippets(t *testing.T) {
	root := repoRoot(t)
	tools := serverTools(t)
	if len(tools) == 0 {
		t.Fatal("the server offers no tools")
	}
	src := readFile(t, root, "docs/agents.md")
	blocks := reFileBlock.FindAllStringSubmatch(src, -1)
	seen := map[string]bool{}
	var problems []string
	for _, b := range blocks {
		lang, file, body := b[1], b[2], b[3]
		seen[file] = true
		where := "docs/agents.md (" + file + ")"
		switch file {
		case ".mcp.json": // Claude Code
			problems = append(problems, checkMCPConfig(where, body, "mcpServers", []string{"stdio", ""}, false, tools)...)
		case ".vscode/mcp.json": // VS Code and Copilot agent mode
			problems = append(problems, checkMCPConfig(where, body, "servers", []string{"stdio"}, false, tools)...)
		case ".cursor/mcp.json":
			problems = append(problems, checkMCPConfig(where, body, "mcpServers", []string{"stdio", ""}, false, tools)...)
		case "copilot-mcp-configuration.json": // Copilot coding agent, repository settings
			problems = append(problems, checkMCPConfig(where, body, "mcpServers", []string{"local", "stdio"}, true, tools)...)
		case ".github/workflows/copilot-setup-steps.yml":
			problems = append(problems, checkCopilotSetup(where, body)...)
		case "AGENTS.md":
			if lang != "markdown" || !strings.Contains(body, "darwin-memo decide") || !strings.Contains(body, "<!-- darwin-memo: v1") {
				problems = append(problems, where+": the paragraph must show `darwin-memo decide` and the ticket comment")
			}
		default:
			problems = append(problems, where+": no check for this file; add one")
		}
	}
	for _, want := range []string{".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", "copilot-mcp-configuration.json", ".github/workflows/copilot-setup-steps.yml", "AGENTS.md"} {
		if !seen[want] {
			problems = append(problems, "docs/agents.md: no snippet for "+want)
		}
	}
	// This repository's own setup files follow the same rules.
	problems = append(problems, checkMCPConfig(".mcp.json", readFile(t, root, ".mcp.json"), "mcpServers", []string{"stdio"}, false, tools)...)
	if a := readFile(t, root, "AGENTS.md"); !strings.Contains(a, "darwin-memo decide") || !strings.Contains(a, ".darwin-memo/lessons.json") {
		problems = append(problems, "AGENTS.md: must tell agents to consult .darwin-memo/lessons.json")
	}
	report(t, problems)
}

// checkCopilotSetup checks the setup-steps workflow: GitHub runs only a job
// named copilot-setup-steps, and it must install the CLI.
func checkCopilotSetup(where, body string) []string {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(body), &wf); err != nil {
		return []string{where + ": not valid YAML: " + err.Error()}
	}
	job, ok := wf.Jobs["copilot-setup-steps"]
	if !ok || len(wf.Jobs) != 1 {
		return []string{where + ": needs exactly one job, named copilot-setup-steps"}
	}
	for _, s := range job.Steps {
		if strings.Contains(s.Run, "go install github.com/darwin-memo/darwin-memo-action/cmd/darwin-memo@") {
			return nil
		}
	}
	return []string{where + ": no step installs the CLI with go install"}
}

func TestCheckMCPConfigCatchesMistakes(t *testing.T) {
	tools := []string{"consult", "search", "lesson"}
	cases := []struct{ name, body, want string }{
		{"vs code key in claude file", `{"servers":{"darwin-memo":{"command":"darwin-memo","args":["mcp"]}}}`, "unexpected top-level key servers"},
		{"wrong command", `{"mcpServers":{"darwin-memo":{"command":"darwin-memo","args":["serve"]}}}`, "does not start"},
		{"unknown tool", `{"mcpServers":{"darwin-memo":{"type":"local","command":"darwin-memo","args":["mcp"],"tools":["decide"]}}}`, "tool decide is not offered"},
		{"misspelt key", `{"mcpServers":{"darwin-memo":{"command":"darwin-memo","arg":["mcp"]}}}`, "unknown field"},
		{"not json", `{"mcpServers":`, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if p := checkMCPConfig("x", c.body, "mcpServers", []string{"stdio", "", "local"}, false, tools); !containsProblem(p, c.want) {
				t.Errorf("problems %q, want one containing %q", p, c.want)
			}
		})
	}
}
