// Package mcpserver serves a lesson store to coding agents over the Model
// Context Protocol: the tools consult (darwin-memo decide), search
// (darwin-memo query) and lesson (darwin-memo why), and the rendered
// LESSONS.md as a resource.
//
// The server is read-only: it never writes the store, its events file or a
// lock. It re-reads the store when the file changes on disk, so a long-lived
// agent session sees the lessons the bot pull request merged.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// ResourceURI names the rendered Markdown of the living lessons.
const ResourceURI = "darwin-memo://lessons.md"

// Options configure a server.
type Options struct {
	// Store is the path of the lesson store. Required.
	Store string
	// Version is reported to clients in the initialize handshake.
	Version string
	// Now is the clock the store is loaded with. Default time.Now.
	Now func() time.Time
	// RenderBudget is the byte budget of the LESSONS.md resource. Default
	// lessons.DefaultRenderBudget.
	RenderBudget int
}

// New returns an MCP server over the store named by opts. Run it with
// (*mcp.Server).Run and a transport, such as StdioTransport.
func New(opts Options) *mcp.Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	h := &handlers{src: &source{path: opts.Store, now: opts.Now}, budget: opts.RenderBudget}
	s := mcp.NewServer(&mcp.Implementation{Name: "darwin-memo", Title: "darwin-memo: measured lessons", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	mcp.AddTool(s, &mcp.Tool{
		Name:  "consult",
		Title: "Consult the repository's measured lessons",
		Description: "Ask the repository's lesson store about the task at hand, at the start of a task or before a risky step. " +
			"Returns the one lesson that answers the question, with its age and how CI last measured it (newer advice supersedes older), " +
			"plus a ticket line. If you act on the answer, put the ticket line in your pull request body: CI then credits or " +
			"debits the lesson by the tests your change made pass or fail. When silent is true no stored lesson answers the " +
			"question: do not invent one.",
		Annotations: readOnly("Consult lessons"),
	}, h.consult)
	mcp.AddTool(s, &mcp.Tool{
		Name:  "search",
		Title: "Search the lessons",
		Description: "Rank the living lessons for a query, best first, with relevance scores and energy balances. " +
			"Read-only exploration: it yields no ticket, so lessons found here earn nothing unless you also consult.",
		Annotations: readOnly("Search lessons"),
	}, h.search)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "lesson",
		Title:       "One lesson's history",
		Description: "Tell one lesson's life story by id (from consult or search): energy, uses, settlements, lineage, and, for a dead lesson, its obituary.",
		Annotations: readOnly("Lesson history"),
	}, h.lesson)
	s.AddResource(&mcp.Resource{
		URI:         ResourceURI,
		Name:        "LESSONS.md",
		Title:       "Living lessons",
		Description: "The living lessons rendered as Markdown within a byte budget, strongest first. Reading it yields no ticket; consult does.",
		MIMEType:    "text/markdown",
	}, h.render)
	return s
}

const instructions = "This repository keeps measured lessons for coding agents. At the start of a task, call consult " +
	"with the question you need answered. If you act on its answer, paste the ticket line it returns into your pull " +
	"request body so CI can credit or debit the lesson. When consult is silent, proceed without stored guidance."

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f}
}

// source loads the store and reloads it when the file changes.
type source struct {
	path string
	now  func() time.Time

	mu    sync.Mutex // held for the whole of each call: a Store is not safe for concurrent use
	store *lessons.Store
	fi    os.FileInfo // the file the store was loaded from
}

// errNoStore says that the store file does not exist.
var errNoStore = errors.New("no store")

// with runs fn on the current store, reloading it when the file was replaced
// (the CLI and git write a new file) or its size or modification time changed
// since the last load: a replacement within the file system's timestamp
// granularity keeps both, so the file's identity is compared too.
//
// A panic in loading or in fn (a bug) becomes the call's error instead of
// ending the server, which an agent's client would see as a dead tool for the
// rest of its session; the store is dropped so the next call reloads it.
func (src *source) with(ctx context.Context, fn func(*lessons.Store) error) (err error) {
	src.mu.Lock()
	defer src.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			src.store = nil
			err = fmt.Errorf("internal error in darwin-memo (please report it with the store that caused it): %v", r)
		}
	}()
	fi, err := os.Stat(src.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		src.store = nil
		return fmt.Errorf("%w: %s does not exist. This repository has no lessons yet, so there is nothing to consult; "+
			"proceed without stored guidance (lessons are added when pull requests merge)", errNoStore, src.path)
	case err != nil:
		return fmt.Errorf("could not read the lesson store: %w", err)
	case fi.IsDir():
		return fmt.Errorf("the lesson store %s is a directory; point the server at the store file with --store", src.path)
	}
	if src.store == nil || !os.SameFile(fi, src.fi) || !fi.ModTime().Equal(src.fi.ModTime()) || fi.Size() != src.fi.Size() {
		s, err := lessons.LoadWith(ctx, src.path, lessons.Options{Now: src.now})
		if err != nil {
			src.store = nil
			return fmt.Errorf("the lesson store cannot be read, so no lesson can be consulted until it is fixed "+
				"(run `darwin-memo doctor --store %s`): %w", src.path, err)
		}
		src.store, src.fi = s, fi
	}
	return fn(src.store)
}

type handlers struct {
	src    *source
	budget int
}

// ConsultInput is the consult tool's input.
type ConsultInput struct {
	Question string `json:"question" jsonschema:"the question about the task at hand, in plain words, e.g. how do I run the integration tests"`
	Top      int    `json:"top,omitempty" jsonschema:"how many lessons to weigh (1-9, default 3): the best decides, the others support it"`
	// Provisional asks for an answer from imported lessons still on probation.
	Provisional bool `json:"provisional,omitempty" jsonschema:"true to hear imported lessons still on probation when nothing else matches: the answer is marked provisional and its ticket lets CI measure them"`
}

// ConsultOutput is the consult tool's structured result.
type ConsultOutput struct {
	Silent     bool     `json:"silent" jsonschema:"true when no stored lesson answers the question: proceed without one"`
	Answer     string   `json:"answer,omitempty" jsonschema:"the deciding lesson's answer with its age and last settlement (and, under darwin-memo's ranking, any conflicting lessons)"`
	LessonID   string   `json:"lesson_id,omitempty" jsonschema:"id of the deciding lesson"`
	Supporting []string `json:"supporting,omitempty" jsonschema:"ids of the other lessons retrieved"`
	Ticket     string   `json:"ticket,omitempty" jsonschema:"the line to paste into the pull request body if you act on the answer"`
	Trailer    string   `json:"trailer,omitempty" jsonschema:"the same ticket as a git commit trailer, for a commit message instead of the pull request body"`
	Withheld   []string `json:"withheld,omitempty" jsonschema:"lessons that matched but are on probation and may not decide yet"`
	Stale      []string `json:"stale,omitempty" jsonschema:"lessons that matched but every file they cite is gone from the working tree, so they did not decide"`
	// Citations are the deciding lesson's, checked against the working tree.
	Citations []citation.Result `json:"citations,omitempty" jsonschema:"the files the deciding lesson cites and whether each still exists: open them before acting on the answer"`
	Next      string            `json:"next" jsonschema:"what to do with this result"`
}

func (h *handlers) consult(ctx context.Context, _ *mcp.CallToolRequest, in ConsultInput) (*mcp.CallToolResult, ConsultOutput, error) {
	var out ConsultOutput
	q := strings.TrimSpace(in.Question)
	if err := checkQuery(q); err != nil {
		return nil, out, err
	}
	k := in.Top
	if k == 0 {
		k = lessons.DefaultK
	}
	if k < 1 || k > lessons.MaxTicketSupporters+1 {
		return nil, out, fmt.Errorf("top must be between 1 and %d", lessons.MaxTicketSupporters+1)
	}
	err := h.src.with(ctx, func(s *lessons.Store) error {
		cc := citation.OpenFor(h.src.path)
		defer cc.Close()
		stale := func(e *lessons.Entry) string {
			if citation.Stale(cc.Check(e.Sources)) {
				return "stale_citations"
			}
			return ""
		}
		d, err := s.Decide(q, lessons.DecideOptions{RetrieveOptions: lessons.RetrieveOptions{K: k}, Provisional: in.Provisional, Exclude: stale})
		if err != nil {
			return err
		}
		out.Silent, out.Withheld = d.Silent, d.Withheld
		for _, x := range d.Excluded {
			out.Stale = append(out.Stale, x.ID)
		}
		if e, ok := s.Entry(d.Decider); ok && d.Decider != "" {
			out.Citations = cc.Check(e.Sources)
		}
		if d.Silent {
			out.Next = "No stored lesson answers this question. Do not invent one; proceed without stored guidance. There is no ticket."
			if len(out.Stale) > 0 {
				out.Next += fmt.Sprintf(" %d matching lesson(s) cite only files that no longer exist, so they may not decide (stale_citations).", len(out.Stale))
			}
			if len(d.Withheld) > 0 {
				out.Next += fmt.Sprintf(" %d matching lesson(s) were imported and are on probation, so they may not decide yet; "+
					"call consult again with provisional: true to hear the best of them, marked provisional.", len(d.Withheld))
			}
			return nil
		}
		out.Answer, out.LessonID, out.Supporting = d.Answer, d.Decider, d.Supporting
		line := d.StoreFreeLine()
		out.Ticket = "<!-- " + line + " -->"
		out.Trailer = lessons.TrailerKey + ":" + strings.TrimPrefix(line, "darwin-memo:")
		out.Next = "Open the files the lesson cites (citations) before acting on it. If you act on this answer, put the ticket line in your pull request body (it is an HTML comment, " +
			"invisible when rendered): CI then credits or debits the lesson by the tests your change made pass or fail."
		return nil
	})
	if errors.Is(err, errNoStore) {
		out.Silent, out.Next = true, err.Error()
		return text(out.Next), out, nil
	}
	if err != nil {
		return nil, out, err
	}
	if out.Silent {
		return text(out.Next), out, nil
	}
	return text(out.Answer + "\n\n" + out.Next + "\n\n" + out.Ticket + "\n\nOr, in a commit message instead, as a git trailer:\n" + out.Trailer), out, nil
}

// SearchInput is the search tool's input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"words to rank the lessons by"`
	Top   int    `json:"top,omitempty" jsonschema:"how many lessons to return (1-50, default 5)"`
}

// SearchHit is one ranked lesson.
type SearchHit struct {
	ID        string  `json:"id"`
	Score     float64 `json:"score" jsonschema:"relevance under the store's ranking, higher is better; comparable within one search only (BM25F scores are not bounded by 1)"`
	Question  string  `json:"question"`
	Answer    string  `json:"answer"`
	Energy    float64 `json:"energy" jsonschema:"the lesson's balance: it earns when CI measures that it helped"`
	MayDecide bool    `json:"may_decide" jsonschema:"false while the lesson is on probation"`
	// Citations are the lesson's, checked against the working tree.
	Citations []citation.Result `json:"citations,omitempty" jsonschema:"the files the lesson cites and whether each still exists"`
}

// SearchOutput is the search tool's structured result.
type SearchOutput struct {
	Hits []SearchHit `json:"hits"`
}

func (h *handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Hits: []SearchHit{}}
	q := strings.TrimSpace(in.Query)
	if err := checkQuery(q); err != nil {
		return nil, out, err
	}
	k := in.Top
	if k == 0 {
		k = 5
	}
	if k < 1 || k > 50 {
		return nil, out, errors.New("top must be between 1 and 50")
	}
	err := h.src.with(ctx, func(s *lessons.Store) error {
		hits, err := s.Retrieve(q, lessons.RetrieveOptions{K: k})
		cc := citation.OpenFor(h.src.path)
		defer cc.Close()
		for _, x := range hits {
			out.Hits = append(out.Hits, SearchHit{x.Entry.ID, x.Score, x.Entry.Question, x.Entry.Answer, x.Entry.Energy, x.Entry.MayDecide(), cc.Check(x.Entry.Sources)})
		}
		return err
	})
	if errors.Is(err, errNoStore) {
		return text(err.Error()), out, nil
	}
	if err != nil {
		return nil, out, err
	}
	if len(out.Hits) == 0 {
		return text("No lesson qualifies for this query."), out, nil
	}
	var sb strings.Builder
	for _, x := range out.Hits {
		fmt.Fprintf(&sb, "%s  score %.3f  energy %.3f\nQ: %s\nA: %s\n\n", x.ID, x.Score, x.Energy, x.Question, x.Answer)
	}
	sb.WriteString("Search yields no ticket: call consult for an answer you will act on.")
	return text(sb.String()), out, nil
}

// LessonInput is the lesson tool's input.
type LessonInput struct {
	ID string `json:"id" jsonschema:"the lesson id, 12 hex characters, as consult or search returned it"`
}

// LessonOutput is the lesson tool's structured result.
type LessonOutput struct {
	ID     string `json:"id"`
	Living bool   `json:"living" jsonschema:"false for a dead or merged lesson"`
	Story  string `json:"story" jsonschema:"energy, uses, settlements and lineage; the obituary of a dead lesson"`
	// Citations are a living lesson's, checked against the working tree.
	Citations []citation.Result `json:"citations,omitempty" jsonschema:"the files the lesson cites and whether each still exists: open them before acting on it"`
}

func (h *handlers) lesson(ctx context.Context, _ *mcp.CallToolRequest, in LessonInput) (*mcp.CallToolResult, LessonOutput, error) {
	id := strings.TrimSpace(in.ID)
	out := LessonOutput{ID: id}
	if id == "" {
		return nil, out, errors.New("id is empty; pass a lesson id from consult or search")
	}
	err := h.src.with(ctx, func(s *lessons.Store) error {
		e, living := s.Entry(id)
		_, dead := s.Dead(id)
		story := s.Obituary(id)
		if e == nil && !dead && !strings.Contains(story, "merged into") {
			return fmt.Errorf("unknown lesson id %q: this store has no living or dead lesson with it; ids come from consult or search", id)
		}
		out.Living, out.Story = living, story
		if living {
			cc := citation.OpenFor(h.src.path)
			defer cc.Close()
			out.Citations = cc.Check(e.Sources)
		}
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	return text(out.Story), out, nil
}

func (h *handlers) render(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var md []byte
	err := h.src.with(ctx, func(s *lessons.Store) error {
		var err error
		md, err = s.Render(lessons.RenderOptions{Budget: h.budget, Label: "lessons.json", Questions: true})
		return err
	})
	if errors.Is(err, errNoStore) {
		md, err = lessons.RenderMissing(h.src.path), nil
	}
	if err != nil {
		// A JSON-RPC error needs a code: the SDK sends a plain error as code 0, which no
		// client can classify. The server could not produce the resource: an internal error.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(md)}}}, nil
}

func checkQuery(q string) error {
	switch {
	case q == "":
		return errors.New("the question is empty; ask about the task at hand in plain words")
	case len(q) > lessons.MaxTicketQuery:
		return fmt.Errorf("the question is %d bytes; at most %d fit in a ticket, so ask it shorter", len(q), lessons.MaxTicketQuery)
	}
	return nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
