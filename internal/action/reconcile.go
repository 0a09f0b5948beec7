package action

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/internal/ghapi"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// Results of a run, as the `result` output reports them.
const (
	ResultSettled   = "settled"
	ResultPending   = "pending"
	ResultAbstained = "abstained"
	ResultNoop      = "noop"
)

// Runner reconciles merged pull requests into the lesson store and the bot pull request.
type Runner struct {
	Client *github.Client
	Config Config
	// Owner, Repo name the repository; RepoURL is its web address; RunURL the run's.
	Owner, Repo     string
	RepoURL, RunURL string
	// RunID identifies the workflow run in evidence ("12345:1").
	RunID string
	// Measure measures a merged pull request's CI delta.
	Measure Measurer
	// Encoder turns merged pull requests into lessons; nil means the deterministic encoder. It
	// must check every author against the trusted associations (WithTrustedAssociations).
	Encoder *encode.Encoder
	// Render renders the store into Markdown within a byte budget; nil disables rendering. It
	// runs while the store is serialised, so it must only read the store.
	Render func(s *lessons.Store, storePath string, budget int) ([]byte, error)
	// Now is the clock for timestamps the store writes and for wait-for-ci.
	Now func() time.Time
	// Sleep waits while CI is pending (nil: a timer); tests inject one that advances Now.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logf prints one progress line (the runner log).
	Logf func(format string, args ...any)
	// Rate reports the core rate limit left (nil: unknown). A run stops taking on merged
	// pull requests when too little is left to process one and write the bot pull request;
	// those wait for a later run.
	Rate func() ghapi.Rate
	// FileLimits bound the files written to the bot branch (zero: GitHub's).
	FileLimits FileLimits

	// mainBlob is the store on the base branch's tip as read in this run, by blob sha: the
	// store at a merged pull request's base is usually the same blob, read and loaded once.
	// Its bytes are kept while the run loads its stores (doc is nil after).
	mainBlob struct {
		sha string
		doc []byte
	}
}

// Outcome is what a run did.
type Outcome struct {
	Result         string
	Delta          float64
	SettledTickets int
	Births, Deaths int
	PRNumber       int
	Operation      botpr.Operation
	// Report is the bot pull request's report (also the step summary).
	Report report.Report
	// Processed lists the pull requests finished in this run, in merge order.
	Processed []int
	// Queued lists pull requests left for a later run (CI pending).
	Queued []int
	// Abstained lists pull requests whose CI was not measurable (left untouched).
	Abstained []int
	// Store is the store document the bot branch holds after the run (nil when unchanged).
	Store []byte
	// Requests and Retries count the GitHub API requests of the run; Rate is the core rate
	// limit left after it (set by Main).
	Requests, Retries int64
	Rate              ghapi.Rate
}

// Headline is a one-line description of the outcome for the step summary.
func (o *Outcome) Headline() string {
	switch o.Result {
	case ResultSettled:
		return fmt.Sprintf("settled %d ticket(s), delta %s", o.SettledTickets, strconv.FormatFloat(o.Delta, 'g', -1, 64))
	case ResultPending:
		return "CI pending; pull requests stay queued"
	case ResultAbstained:
		return "abstained; nothing measurable"
	}
	return "nothing to settle"
}

func (r *Runner) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) repoAPI() botpr.Repo {
	return botpr.Repo{Client: r.Client, Owner: r.Owner, Name: r.Repo, Sleep: r.Sleep}
}

// readFile reads path at a commit through the contents API; found is false on 404. A file
// over 1 MB comes from the contents API without content (encoding "none"): its bytes are then
// read through the Git blobs API by the blob sha the contents API gave, with the token sent
// only to the API and every status checked (a 5xx is retried by the transport, then is an
// error; it is never parsed as the file). GitHub refuses files over 100 MB, and so does the
// blobs API, so larger files cannot exist.
func (r *Runner) readFile(ctx context.Context, path, ref string) (data []byte, found bool, err error) {
	data, _, found, err = r.readFileSHA(ctx, path, ref)
	return data, found, err
}

// readFileSHA is readFile that also returns the file's blob sha. A blob this run read already
// as the base branch's store (Runner.mainBlob) is not downloaded again.
func (r *Runner) readFileSHA(ctx context.Context, path, ref string) (data []byte, sha string, found bool, err error) {
	data, found, err = r.readContents(ctx, path, ref, &sha)
	return data, sha, found, err
}

func (r *Runner) readContents(ctx context.Context, path, ref string, sha *string) (data []byte, found bool, err error) {
	fc, _, resp, err := r.Client.Repositories.GetContents(ctx, r.Owner, r.Repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, false, nil
		}
		return nil, false, botpr.Explain(fmt.Errorf("reading %s at %s: %w", path, short(ref), err), "contents")
	}
	if fc == nil {
		return nil, false, fmt.Errorf("reading %s at %s: it is a directory, not a file", path, short(ref))
	}
	*sha = fc.GetSHA()
	if *sha != "" && *sha == r.mainBlob.sha {
		return r.mainBlob.doc, true, nil
	}
	if fc.GetEncoding() == "none" || (fc.GetSize() > 0 && fc.Content == nil) {
		b, err := r.readBlob(ctx, path, ref, fc.GetSHA(), fc.GetSize())
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, false, fmt.Errorf("decoding %s at %s: %w", path, short(ref), err)
	}
	return []byte(s), true, nil
}

// rawBlobMediaType is the media type GitHub's description of GET /git/blobs/{file_sha} offers
// for a blob's bytes: "application/vnd.github.raw+json: Returns the raw blob data" (without
// it, the answer is the blob object, its content base64).
const rawBlobMediaType = "application/vnd.github.raw+json"

// readBlob reads a file over 1 MB through GET /git/blobs/{sha} (GitHub serves blobs up to
// 100 MB this way) with the raw media type, so the store arrives as its bytes, read straight
// into one buffer of the file's size: no base64 to send, hold or decode. A server that answers
// with the blob object instead is understood too (blobBytes).
func (r *Runner) readBlob(ctx context.Context, path, ref, sha string, size int) ([]byte, error) {
	if sha == "" {
		return nil, fmt.Errorf("reading %s at %s: the contents API gave no blob sha for a %d-byte file", path, short(ref), size)
	}
	fail := func(err error) error {
		return botpr.Explain(fmt.Errorf("reading %s at %s through the blobs API (blob %s, %d bytes): %w", path, short(ref), short(sha), size, err), "contents")
	}
	req, err := r.Client.NewRequest(http.MethodGet, fmt.Sprintf("repos/%v/%v/git/blobs/%v", r.Owner, r.Repo, sha), nil)
	if err != nil {
		return nil, fail(err)
	}
	req.Header.Set("Accept", rawBlobMediaType)
	resp, err := r.Client.BareDo(ctx, req)
	if err != nil {
		return nil, fail(err)
	}
	body, err := readAnswer(resp.Body, size)
	resp.Body.Close()
	if err != nil {
		return nil, fail(err)
	}
	b, err := blobBytes(body, size)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s through the blobs API: %w", path, short(ref), err)
	}
	return b, nil
}

// readAnswer reads an answer to the raw media type for a blob of size bytes: into a buffer of
// exactly that size when it is the blob's bytes, and on, bounded, when it is longer (a blob
// object: base64 with escaped line breaks, a third longer than the blob, and its fields).
func readAnswer(body io.Reader, size int) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(body, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:n], nil // shorter than the blob: blobBytes says so
	case err != nil:
		return nil, err
	}
	var one [1]byte
	if k, err := io.ReadFull(body, one[:]); k == 0 {
		if errors.Is(err, io.EOF) {
			return buf, nil // exactly size bytes
		}
		return nil, err
	}
	limit := int64(size)/3*4 + int64(size)/10 + 64<<10
	rest, err := io.ReadAll(io.LimitReader(body, limit))
	if err != nil {
		return nil, err
	}
	if int64(len(rest)) == limit {
		return nil, fmt.Errorf("the answer is longer than a blob of %d bytes can be, in any encoding", size)
	}
	return append(append(buf, one[0]), rest...), nil
}

// blobBytes returns the blob from an answer to GET /git/blobs/{sha} with the raw media type:
// the answer itself, or the decoded content of a blob object from a server that ignores the
// media type. The size the contents API gave tells the two apart without guessing from the
// bytes (a store is a JSON object too): the object for a blob of n bytes is always longer than
// n (its base64 alone is a third longer), so an answer of exactly n bytes is the blob.
func blobBytes(body []byte, size int) ([]byte, error) {
	if len(body) == size {
		return body, nil
	}
	b, err := decodeBlob(body)
	if err != nil {
		return nil, fmt.Errorf("got %d bytes, neither the %d bytes the contents API said nor a blob object: %w", len(body), size, err)
	}
	if len(b) != size {
		return nil, fmt.Errorf("got %d bytes, the contents API said %d", len(b), size)
	}
	return b, nil
}

// decodeBlob returns the bytes of a blob object (GitHub's answer to GET /git/blobs/{sha} without
// the raw media type). The content of a large blob is most of the answer: it is found with a
// scan of the object's top level and decoded straight from the answer's bytes (base64 with
// escaped line breaks); an answer the scan does not expect is read with encoding/json instead.
func decodeBlob(body []byte) ([]byte, error) {
	if content, enc, ok := scanBlob(body); ok && enc == "base64" {
		return decodeBase64Lines(content)
	}
	var blob struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if err := json.Unmarshal(body, &blob); err != nil {
		return nil, fmt.Errorf("the answer is not a blob object: %w", err)
	}
	switch blob.Encoding {
	case "base64":
		return decodeBase64Lines([]byte(blob.Content))
	case "utf-8":
		return []byte(blob.Content), nil
	default:
		return nil, fmt.Errorf("unknown encoding %q", blob.Encoding)
	}
}

// scanBlob finds the "content" and "encoding" strings of a JSON object whose members are all
// strings or numbers, and whose content holds no escape but \n. ok is false for anything else.
func scanBlob(b []byte) (content []byte, encoding string, ok bool) {
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
			i++
		}
	}
	str := func() ([]byte, bool) { // the raw bytes between the quotes
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		start := i + 1
		for j := start; j < len(b); j++ {
			switch b[j] {
			case '"':
				i = j + 1
				return b[start:j], true
			case '\\':
				j++
			}
		}
		return nil, false
	}
	ws()
	if i >= len(b) || b[i] != '{' {
		return nil, "", false
	}
	i++
	var haveContent bool
	for {
		ws()
		key, ok := str()
		if !ok || bytes.IndexByte(key, '\\') >= 0 {
			return nil, "", false
		}
		ws()
		if i >= len(b) || b[i] != ':' {
			return nil, "", false
		}
		i++
		ws()
		if i < len(b) && b[i] == '"' {
			v, ok := str()
			if !ok {
				return nil, "", false
			}
			switch string(key) {
			case "content":
				content, haveContent = v, true
			case "encoding":
				encoding = string(v)
			}
		} else {
			for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '-' || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] == '+' || b[i] >= 'a' && b[i] <= 'z') {
				i++ // a number, true, false or null
			}
		}
		ws()
		if i >= len(b) {
			return nil, "", false
		}
		if b[i] == '}' {
			i++
			ws()
			return content, encoding, haveContent && i == len(b)
		}
		if b[i] != ',' {
			return nil, "", false
		}
		i++
	}
}

// decodeBase64Lines decodes base64 whose lines are broken by JSON's escaped \n (or by raw
// line breaks, which the decoder skips). It overwrites content.
func decodeBase64Lines(content []byte) ([]byte, error) {
	clean := content[:0] // in place: the answer's buffer is the caller's to spend
	for rest := content; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\\')
		if i < 0 {
			clean = append(clean, rest...)
			break
		}
		clean = append(clean, rest[:i]...)
		if i+1 >= len(rest) || rest[i+1] != 'n' {
			return nil, errors.New("content is not base64: an escape other than a line break")
		}
		rest = rest[i+2:]
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
	n, err := base64.StdEncoding.Decode(out, clean)
	if err != nil {
		return nil, fmt.Errorf("content is not base64: %w", err)
	}
	return out[:n], nil
}

// storeOptions are the options every store is parsed or created with.
// Options.Config is only the config of a store the action creates
// (lessons.New on a repository without a store): it starts with
// lessons.RecommendedConfig. lessons.ParseWith never applies it, so an
// existing store keeps its persisted ledger.config, and one without a
// ledger.config (every store darwin-memo wrote) gets darwin-memo's defaults.
func (r *Runner) storeOptions() lessons.Options {
	newStore := lessons.RecommendedConfig()
	return lessons.Options{Now: r.now, Config: &newStore}
}

// parseStore parses a store document; nil data gives a new empty store.
func (r *Runner) parseStore(where string, data []byte) (*lessons.Store, error) {
	return r.parseStoreWith(where, data, r.storeOptions())
}

func (r *Runner) parseStoreWith(where string, data []byte, opts lessons.Options) (*lessons.Store, error) {
	if data == nil {
		return lessons.New(r.Config.StorePath, opts), nil
	}
	s, err := lessons.ParseWith(r.Config.StorePath, data, opts)
	if err != nil {
		return nil, fmt.Errorf("the lesson store on %s is malformed, so nothing was written; fix it there (for example with `darwin-memo doctor --store %s`): %w", where, r.Config.StorePath, err)
	}
	return s, nil
}

// state is the store the run starts from.
type state struct {
	base      string // base branch name
	baseTip   string
	mainDoc   []byte // store on the base branch (nil if absent), while load runs
	mainFound bool   // the base branch has a store
	mainStore *lessons.Store
	mainRec   Record
	// botRec is the record of the open bot pull request's store (nil when none is open or it
	// does not read): the bot's own held readings (checkHeld).
	botRec   *Record
	open     *github.PullRequest
	workDoc  []byte
	store    *lessons.Store
	rec      Record
	warnings []string
	// flaky is the flaky-quarantine sidecar the run measures with and records into; nil until
	// first needed (flakyHistory). flakyRef is the commit it is read at: the open bot pull
	// request's head when the run starts from its store, else "" (the base of oldest).
	flaky      *settle.FlakyHistory
	flakyRef   string
	flakyFound bool // the sidecar existed where it was read
	// oldest is the run's first pull request in merge order: every pull request the run
	// settles merged after the commit it was merged onto.
	oldest *github.PullRequest
	// oldestOnto is the commit oldest was merged onto, once its tickets' verification walked
	// back to it (storeAtBase); "" until then.
	oldestOnto string
	// persist is set when the record gained something that must be written even without a
	// lesson-level change: a final abstention, which would otherwise be measured again.
	persist bool
	// reapply holds the records of pull requests a discarded bot branch had processed and the
	// base branch has not: they are settled again with the recorded delta and tickets.
	reapply map[int]Processed
	// closedBranch is set when the bot branch of a closed pull request was read and its work
	// carried over.
	closedBranch bool
	// trig is the run's trigger (its payload's body is the merge-time body of its pull request).
	trig Trigger
}

// Run reconciles every merged pull request not processed yet and publishes the bot pull
// request. It writes nothing until every read succeeded, and moves the bot branch in one
// request, so a failure never leaves a half-written branch.
func (r *Runner) Run(ctx context.Context, trig Trigger) (*Outcome, error) {
	st, err := r.load(ctx, trig)
	var spent budgetSpent
	if errors.As(err, &spent) {
		r.logf("%s", spent)
		return &Outcome{Result: ResultNoop, Operation: botpr.OpNone,
			Report: report.Report{RepoURL: r.RepoURL, RunURL: r.RunURL, StorePath: r.Config.StorePath, Warnings: []string{string(spent)}}}, nil
	}
	if err != nil {
		return nil, err
	}
	st.trig = trig
	out := &Outcome{Result: ResultNoop, Operation: botpr.OpNone}
	prs, err := r.candidates(ctx, st, trig)
	if err != nil {
		return nil, err
	}
	if len(prs) > 0 {
		st.oldest = prs[0]
	}
	before := livingIDs(st.store)
	for i, pr := range prs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		low, why := r.budgetLow()
		if !low {
			err := r.process(ctx, st, pr, out)
			var queued budgetQueued
			if !errors.As(err, &queued) {
				if err != nil {
					return nil, err
				}
				continue
			}
			why = string(queued)
		}
		// The rate limit left cannot cover this pull request: it and the rest wait.
		var left []string
		for _, rest := range prs[i:] {
			st.rec.queue(rest.GetNumber())
			r.holdReading(st, rest)
			out.Queued = append(out.Queued, rest.GetNumber())
			left = append(left, fmt.Sprintf("#%d", rest.GetNumber()))
		}
		st.warnings = append(st.warnings, fmt.Sprintf("%s: %s wait for a later run", why, strings.Join(left, ", ")))
		r.logf("%s; queued %s", why, strings.Join(left, ", "))
		break
	}
	out.Births, out.Deaths = bornAndDied(before, st.store)
	switch {
	case out.SettledTickets > 0:
		out.Result = ResultSettled
	case len(out.Queued) > 0:
		out.Result = ResultPending
	case len(out.Abstained) > 0:
		out.Result = ResultAbstained
	}
	if w := extinctionWarning(out.Deaths, len(before)); w != "" {
		st.warnings = append(st.warnings, w)
	}
	if st.rec.holdsBeyond(st.mainRec) {
		st.persist = true
	}
	return out, r.publish(ctx, st, out)
}
