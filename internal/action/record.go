package action

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// RecordKey is the top-level key of the store where the action keeps its own state: which
// merged pull requests it has processed (so a rerun never settles twice), which are queued
// behind pending CI, and the population trend for the chart. darwin-memo ignores unknown
// top-level keys and the lessons package preserves them.
const RecordKey = "darwin_memo_action"

// Caps that keep the record small whatever the repository's age.
const (
	maxProcessed = 500
	maxTrend     = 60
	maxProposed  = 5
)

// Record is the value stored under RecordKey.
type Record struct {
	Version   int          `json:"version"`
	Processed []Processed  `json:"processed"`
	Queued    []int        `json:"queued,omitempty"`
	Trend     []TrendPoint `json:"trend,omitempty"`
	// Held keeps, for each queued pull request (by number), the canonical lines of the tickets
	// its body held when the action first read it (the body at the merge): a later run settles
	// these, never a body edited since.
	Held map[string][]string `json:"held,omitempty"`
	// HeldBody is, for each pull request in Held, the SHA-256 (hex) of the body its tickets were
	// read from: a later run tells from it whether the body changed since, and says so.
	HeldBody map[string]string `json:"held_body,omitempty"`
}

// Processed is one merged pull request the action has finished with.
type Processed struct {
	PR          int        `json:"pr"`
	Title       string     `json:"title,omitempty"`
	MergeCommit string     `json:"merge_commit,omitempty"`
	MergedAt    string     `json:"merged_at,omitempty"`
	Outcome     string     `json:"outcome"` // settled, no-tickets, refused, abstained
	Reason      string     `json:"reason,omitempty"`
	Delta       *float64   `json:"delta,omitempty"`
	Source      string     `json:"source,omitempty"`
	Before      string     `json:"before,omitempty"`
	After       string     `json:"after,omitempty"`
	Quarantined []string   `json:"quarantined,omitempty"`
	Settled     []string   `json:"settled,omitempty"`
	Refused     []string   `json:"refused,omitempty"`
	Tick        *int       `json:"tick,omitempty"`
	Proposed    []Proposal `json:"proposed,omitempty"`
	Run         string     `json:"run,omitempty"`
}

// Proposal is a lesson from an untrusted author, listed for people to add by hand.
type Proposal struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Author   string `json:"author,omitempty"`
}

// Processed outcomes.
const (
	OutcomeSettled   = "settled"
	OutcomeNoTickets = "no-tickets"
	OutcomeRefused   = "refused"
	// OutcomeAbstained records a final abstention (CI results past the per-commit caps), so
	// no later run measures the pull request again.
	OutcomeAbstained = "abstained"
)

// TrendPoint is the population after one processed pull request.
type TrendPoint struct {
	PR         int     `json:"pr"`
	Tick       int     `json:"tick"`
	Population int     `json:"population"`
	Energy     float64 `json:"energy"`
}

func (r *Record) has(pr int) bool {
	for _, p := range r.Processed {
		if p.PR == pr {
			return true
		}
	}
	return false
}

func (r *Record) add(p Processed) {
	r.Processed = capProcessed(append(r.Processed, p))
	r.unqueue(p.PR)
}

// mergeKey orders processed pull requests by merge time, then number; a missing or
// malformed merged_at sorts first (oldest).
func (p Processed) mergeKey() (time.Time, int) {
	t, _ := time.Parse(time.RFC3339, p.MergedAt)
	return t, p.PR
}

func mergedBefore(a, b Processed) bool {
	ta, na := a.mergeKey()
	tb, nb := b.mergeKey()
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return na < nb
}

// capProcessed sorts the processed list by merge time and keeps the maxProcessed merged last,
// so its first entry is the oldest merge it holds (the replay horizon; see horizon).
func capProcessed(l []Processed) []Processed {
	sort.SliceStable(l, func(i, j int) bool { return mergedBefore(l[i], l[j]) })
	if len(l) > maxProcessed {
		l = l[len(l)-maxProcessed:]
	}
	return l
}

// horizon returns the oldest merge a full record holds, and whether the record is full. A
// pull request merged before it (at the same second: with a lower number) may have been
// processed and dropped from the record, so it is never processed again.
func (r *Record) horizon() (Processed, bool) {
	if len(r.Processed) < maxProcessed {
		return Processed{}, false
	}
	oldest := r.Processed[0]
	for _, p := range r.Processed[1:] {
		if mergedBefore(p, oldest) {
			oldest = p
		}
	}
	return oldest, true
}

func (r *Record) queue(pr int) {
	for _, q := range r.Queued {
		if q == pr {
			return
		}
	}
	r.Queued = append(r.Queued, pr)
	sort.Ints(r.Queued)
}

// hold keeps the tickets a queued pull request's body held when it was first read, and the
// hash of that body; a later reading keeps the first.
func (r *Record) hold(pr int, tickets []lessons.BodyTicket, body string) {
	k := itoa(pr)
	if _, ok := r.Held[k]; !ok {
		r.keep(k, ticketLines(tickets), bodyHash(body))
	}
}

// holdsBeyond reports whether r holds the first reading of a pull request that base does not:
// it must be written (the bot pull request opened or kept open for it), or the next run would
// read the pull request again and could find it edited or commented on since its merge.
func (r *Record) holdsBeyond(base Record) bool {
	for k := range r.Held {
		if _, ok := base.Held[k]; !ok {
			return true
		}
	}
	return false
}

// keep sets the held tickets and body hash of the pull request numbered k.
func (r *Record) keep(k string, lines []string, hash string) {
	if r.Held == nil {
		r.Held = map[string][]string{}
	}
	r.Held[k] = lines
	if hash != "" {
		if r.HeldBody == nil {
			r.HeldBody = map[string]string{}
		}
		r.HeldBody[k] = hash
	}
}

// bodyHash is the hex SHA-256 of a pull request body.
func bodyHash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

func (r *Record) unqueue(pr int) {
	delete(r.Held, itoa(pr))
	if len(r.Held) == 0 {
		r.Held = nil
	}
	delete(r.HeldBody, itoa(pr))
	if len(r.HeldBody) == 0 {
		r.HeldBody = nil
	}
	out := r.Queued[:0]
	for _, q := range r.Queued {
		if q != pr {
			out = append(out, q)
		}
	}
	r.Queued = out
	if len(r.Queued) == 0 {
		r.Queued = nil
	}
}

func (r *Record) addTrend(p TrendPoint) {
	r.Trend = append(r.Trend, p)
	if len(r.Trend) > maxTrend {
		r.Trend = r.Trend[len(r.Trend)-maxTrend:]
	}
}

// ReadRecord returns the record stored in a store document (an empty record when the key is
// absent), reading only that key with the lessons package's reader: a store whose lessons do
// not load still gives its record. A malformed record is an error naming the key: it is the
// replay guard, so guessing could settle a pull request twice.
func ReadRecord(doc []byte) (Record, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return Record{Version: 1}, nil
	}
	raw, _, err := storedoc.ExtensionOf("store", doc, RecordKey)
	if err != nil {
		return Record{Version: 1}, fmt.Errorf("store is not a JSON object: %w", err)
	}
	return decodeRecord(raw)
}

// RecordOf returns the record a loaded store keeps under RecordKey (an empty record when the
// key is absent); errors as ReadRecord.
func RecordOf(s *lessons.Store) (Record, error) {
	raw, _ := s.Extension(RecordKey)
	return decodeRecord(raw)
}

// decodeRecord reads the record's JSON (nil or null: an empty record).
func decodeRecord(raw []byte) (Record, error) {
	rec := Record{Version: 1}
	if raw == nil || string(raw) == "null" {
		return rec, nil
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return Record{Version: 1}, fmt.Errorf("store key %q is malformed (%v); fix or delete it by hand: it records which pull requests were settled", RecordKey, err)
	}
	if rec.Version != 1 {
		return Record{Version: 1}, fmt.Errorf("store key %q has version %d; this action reads version 1 (upgrade the action)", RecordKey, rec.Version)
	}
	return rec, nil
}

// putRecord keeps the record in the store under RecordKey (in its place, or last when new).
func putRecord(s *lessons.Store, r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.SetExtension(RecordKey, b)
}

// mergeRecords is the three-way rule for RecordKey: the union of processed pull requests (a
// pull request processed on either side stays processed), queued ones minus the processed,
// and the longer trend.
func mergeRecords(base, ours, theirs []byte) ([]byte, error) {
	o, err := decodeRecord(ours)
	if err != nil {
		return nil, err
	}
	t, err := decodeRecord(theirs)
	if err != nil {
		return nil, err
	}
	out := Record{Version: 1}
	byPR := map[int]Processed{}
	for _, p := range t.Processed {
		byPR[p.PR] = p
	}
	for _, p := range o.Processed {
		byPR[p.PR] = p
	}
	for _, p := range byPR {
		out.Processed = append(out.Processed, p)
	}
	out.Processed = capProcessed(out.Processed)
	for _, q := range append(append([]int{}, o.Queued...), t.Queued...) {
		if _, done := byPR[q]; !done {
			out.queue(q)
		}
	}
	// The tickets held for a queued pull request are those of its first reading: theirs is
	// older than ours only if it was queued on the base branch first, so theirs wins.
	for _, q := range out.Queued {
		k := itoa(q)
		if lines, ok := t.Held[k]; ok {
			out.keep(k, lines, t.HeldBody[k])
		} else if lines, ok := o.Held[k]; ok {
			out.keep(k, lines, o.HeldBody[k])
		}
	}
	out.Trend = o.Trend
	if len(t.Trend) > len(o.Trend) {
		out.Trend = t.Trend
	}
	return json.Marshal(out)
}

func itoa(n int) string { return strconv.Itoa(n) }
