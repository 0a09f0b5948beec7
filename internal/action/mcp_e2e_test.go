package action

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
)

// TestE2EMCPConsultTicketIsSettled follows a lesson from an agent's MCP
// consult to settled energy: the agent consults the checked-out store
// through `darwin-memo mcp`'s consult tool, pastes the ticket it returns into
// its pull request body, the pull request merges with a measured delta, and
// the action credits the lesson the agent consulted.
func TestE2EMCPConsultTicketIsSettled(t *testing.T) {
	t.Parallel()
	store, es := seedStore(t)
	h := newHarness(t, store)

	// The agent's checkout of main.
	checkout := filepath.Join(t.TempDir(), "lessons.json")
	if err := os.WriteFile(checkout, store, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(mcpserver.Options{Store: checkout, Now: fixedNow}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "consult", Arguments: map[string]any{"question": "How do I run the integration tests?"}})
	if err != nil || res.IsError {
		t.Fatalf("consult: %v %+v", err, res)
	}
	var out mcpserver.ConsultOutput
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.LessonID != es[0].ID || out.Ticket == "" {
		t.Fatalf("consult = %+v", out)
	}

	pr := h.merge("Fix flaky itest", "Fixes the integration tests by running them as the lesson says.\n\n"+out.Ticket+"\n", measured(2))
	r := h.run("pull_request_target", mergedEvent(pr.Number), nil)
	mustCode(t, r, 0)
	if r.outputs["result"] != "settled" || r.outputs["settled-tickets"] != "1" {
		t.Fatalf("outputs %v\n%s", r.outputs, r.stdout)
	}
	e, ok := h.botStore(DefaultBranch).Entry(out.LessonID)
	if !ok || e.Energy <= 1.0 || e.Uses != 1 {
		t.Fatalf("the consulted lesson was not credited: %+v", e)
	}
	if !strings.Contains(h.openBotPRs()[0].Body, out.LessonID[:8]) {
		t.Fatalf("bot PR does not name the settled lesson:\n%s", h.openBotPRs()[0].Body)
	}
}
