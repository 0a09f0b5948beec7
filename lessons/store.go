package lessons

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/textidx"
)

// Kind is the kind of a lesson.
type Kind string

// The lesson kinds darwin-memo knows.
const (
	KindExplicit     Kind = "explicit"
	KindInferred     Kind = "inferred"
	KindEntity       Kind = "entity"
	KindCrossDoc     Kind = "cross_doc"
	KindExperience   Kind = "experience"
	KindConsolidated Kind = "consolidated"
)

// internKind returns the shared Kind for b.
func internKind(b []byte) (Kind, bool) {
	for _, k := range [...]Kind{KindExplicit, KindInferred, KindEntity, KindCrossDoc, KindExperience, KindConsolidated} {
		if string(b) == string(k) {
			return k, true
		}
	}
	return "", false
}

func validKind(k string) bool {
	switch Kind(k) {
	case KindExplicit, KindInferred, KindEntity, KindCrossDoc, KindExperience, KindConsolidated:
		return true
	}
	return false
}

// Economic constants (semantics §3.1).
const (
	SpawnEnergy       = 1.0
	DefaultUpkeep     = 0.05
	DefaultMaxEnergy  = 5.0
	AliveThreshold    = 1e-9
	DefaultExpire     = 50
	HistoryCap        = 100
	DefaultK          = 3
	DefaultProbation  = 3
	MinCoverage       = 0.25
	minUpkeepScale    = 0.25
	damageThreshold   = -1e-9
	defaultStoreLabel = "lessons.json"
)

// Entry is one lesson: a question–answer pair with an energy balance.
// Fields mirror darwin-memo's MemoryEntry; the JSON keys are in this order.
type Entry struct {
	Question      string
	Answer        string
	Kind          Kind
	Sources       []string
	Energy        float64
	BornCycle     int
	RecordedTS    string // "" means age unknown
	LastUsedCycle int    // -1 means never settled
	Uses          int
	Lineage       []string
	Pinned        bool
	Probation     int
	Juvenile      int
	ImportedFrom  *string
	ImportedAt    *string
	ID            string

	set    []uint32 // token id set of Question+" "+Answer (store dict), lazily
	hasSet bool
	doc    int  // document number in the store's index
	dead   bool // set while a burial sweep is compacting the living list

	// streak is the number of unbundled gains since the entry's last loss
	// (tenure), derived from its history when streakSet is false.
	streak    int
	streakSet bool
}

// Alive reports whether the entry's balance is above the death threshold.
func (e *Entry) Alive() bool { return e.Energy > AliveThreshold }

// MayDecide reports whether the entry is out of probation.
func (e *Entry) MayDecide() bool { return e.Probation <= 0 }

// Config is the persisted selection configuration (darwin-memo's
// SurvivalConfig minus cycles).
type Config struct {
	CreditGain               float64
	SupportingShare          float64
	ConsolidateEvery         int
	MergeThreshold           float64
	WriteExperience          bool
	ExperienceMinDelta       float64
	ExperienceDedupThreshold float64
	ResourceScale            *float64
	AdmissionWindow          int
	UpkeepRequiresSettlement bool
	MergeSourcePolicy        string
	ConflictThreshold        *float64

	// Economics of this project (issue 13; economics.go, docs/tuning.md),
	// persisted as extra ledger.config keys that darwin-memo drops on load.
	// Their zero values are darwin-memo's rules, so a store without them
	// keeps darwin-memo's economics; RecommendedConfig sets them for new
	// stores.

	// RetrievalUpkeep is charged once to every living entry of a ticket's
	// provenance (decider and supporters) when the ticket settles with an
	// outcome: upkeep on opportunity. 0 is off. Key "retrieval_upkeep".
	RetrievalUpkeep float64
	// IdleUpkeepScale multiplies the per-tick upkeep. Nil is 1
	// (darwin-memo). Key "idle_upkeep_scale".
	IdleUpkeepScale *float64
	// HarmGain replaces CreditGain for negative deltas (loss aversion). 0
	// is off. Key "harm_gain".
	HarmGain float64
	// TenureAfter is the number of unbundled gains since the last loss that
	// promote an entry to tenure, in which it pays TenureUpkeepScale times
	// the per-tick upkeep (Store.Tenured). 0 is off. Keys "tenure_after",
	// "tenure_upkeep_scale".
	TenureAfter       int
	TenureUpkeepScale float64
	// BundleSplit divides a PR's delta equally among the tickets it
	// settles (SettleOptions.Bundle) before credit is computed, gains and
	// losses alike. false is off. Key "bundle_split".
	BundleSplit bool
	// SegregateLosses assesses a PR's regressions apart from its
	// improvements when the settlement knows them
	// (SettleOptions.Regressions): credit is CreditGain·tanh(improvements /
	// scale) minus HarmGain·tanh(regressions / scale), each split like the
	// delta, instead of one tanh of their difference, so a lesson's gains
	// do not mask the tests its PR broke. false is off (one net delta).
	// Key "segregate_losses".
	SegregateLosses bool
}

// DefaultConfig returns darwin-memo's defaults. It is the fallback for a
// store without a persisted ledger.config and for New without
// Options.Config.
func DefaultConfig() Config {
	return Config{
		CreditGain:               0.6,
		SupportingShare:          0.25,
		ConsolidateEvery:         5,
		MergeThreshold:           0.55,
		WriteExperience:          true,
		ExperienceMinDelta:       0,
		ExperienceDedupThreshold: 0.8,
		AdmissionWindow:          0,
		MergeSourcePolicy:        "off",
	}
}

// RecommendedConfig returns the configuration this project starts new
// stores with: darwin-memo's defaults except SupportingShare 0, the setting
// the selection benchmark recommends (docs/tuning.md). A store's persisted
// ledger.config always wins over it.
func RecommendedConfig() Config {
	c := DefaultConfig()
	c.SupportingShare = 0
	c.RetrievalUpkeep = RecommendedRetrievalUpkeep
	idle := RecommendedIdleUpkeepScale
	c.IdleUpkeepScale = &idle
	c.HarmGain = RecommendedHarmGain
	c.TenureAfter = RecommendedTenureAfter
	c.TenureUpkeepScale = RecommendedTenureUpkeepScale
	c.BundleSplit = RecommendedBundleSplit
	c.SegregateLosses = RecommendedSegregateLosses
	return c
}

// The economics new stores start with (issue 13; docs/tuning.md has the
// evidence). With upkeep 0.05 per tick: an entry pays 0.015 per tick while
// idle, 0.0015 once tenured (after one unbundled gain since its last loss),
// and 0.09 for every settled ticket that retrieved it; a PR's delta is split
// equally among its tickets, its regressions (when known) are charged apart
// from its improvements, and a harmful outcome moves up to 1.2 energy.
const (
	RecommendedBundleSplit       = true
	RecommendedSegregateLosses   = true
	RecommendedRetrievalUpkeep   = 0.09
	RecommendedIdleUpkeepScale   = 0.3
	RecommendedHarmGain          = 1.2
	RecommendedTenureAfter       = 1
	RecommendedTenureUpkeepScale = 0.1
)

// Scale returns the tanh normaliser: the persisted resource_scale or 1.0.
func (c Config) Scale() float64 {
	if c.ResourceScale != nil {
		return *c.ResourceScale
	}
	return 1.0
}

// conflictThreshold is the similarity at which hits conflict (default: the
// merge threshold).
func (c Config) conflictThreshold() float64 {
	if c.ConflictThreshold != nil {
		return *c.ConflictThreshold
	}
	return c.MergeThreshold
}

var configKeys = []string{
	"credit_gain", "supporting_share", "consolidate_every", "merge_threshold", "write_experience",
	"experience_min_delta", "experience_dedup_threshold", "resource_scale", "admission_window",
	"upkeep_requires_settlement", "merge_source_policy", "conflict_threshold",
}

// Ticket is the record of one consult: the query, the answer given and the
// entries that produced it (its provenance).
type Ticket struct {
	ID                string
	Query             string
	Answer            string
	DecidingEntry     string // "" for none (null)
	SupportingEntries []string
	BornTick          int

	raw value // as loaded (kept for byte-exact rewrite); zero for new tickets
}

// Provenance returns the supporters followed by the decider.
func (t *Ticket) Provenance() []string {
	out := append([]string(nil), t.SupportingEntries...)
	if t.DecidingEntry != "" {
		out = append(out, t.DecidingEntry)
	}
	return out
}

// Options are the injected dependencies of a Store.
type Options struct {
	// Now is the clock used for recorded_ts, note and event timestamps.
	// Default: time.Now.
	Now func() time.Time
	// NewID derives a 12-hex id from content. Default: ContentID.
	NewID func(parts ...string) string
	// Config is the selection configuration a store created by New (or by
	// LoadOrNew for a missing file) starts with. Default: DefaultConfig().
	// A loaded store never uses it: it keeps its persisted ledger.config,
	// or gets DefaultConfig() when the file has none (as in darwin-memo).
	Config *Config
	// LockWait is how long LoadLocked and Save wait for another process to
	// release the store's lock before failing with ErrLocked. Zero means
	// DefaultLockWait; negative means fail at once.
	LockWait time.Duration
	// Retrieval is the ranking Retrieve and Decide use when neither the
	// call nor the store's config ("retrieval") names one. Default: v2.
	Retrieval Retrieval
	// ConsultOnly loads a store for a process that only consults it
	// (decide, query): ledger.history and the graveyard, which consulting
	// never reads, are checked as JSON and passed over, not kept (History
	// and the graveyard are empty). Such a store cannot be written:
	// Marshal and WriteTo fail.
	ConsultOnly bool
}

// ContentID is the default id source: the first 12 hex chars of the SHA-256
// of the NUL-joined parts. darwin-memo uses random UUIDs instead (see
// docs/compat.md).
func ContentID(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	var sum [32]byte
	return hex.EncodeToString(h.Sum(sum[:0]))[:12]
}

// Store is a darwin-memo lesson store together with its ledger: living
// entries, graveyard, tick counter, pending tickets, history, damaged set,
// settled runs and the persisted config.
type Store struct {
	name string // file label used in errors and render headers

	MaxEnergy float64
	Upkeep    float64

	living    []*Entry
	graveyard []*Entry
	byID      map[string]*Entry // living entries by id
	deadIDs   map[string]int    // graveyard ids -> last index

	retriever *value   // carried through untouched
	extraTop  []member // unknown top-level keys, in original order
	extraCfg  []member // unknown store-config keys

	hasLedger      bool
	hasSettledRuns bool
	hasLedgerCfg   bool
	cfgOrder       []string // config keys in loaded order
	extraLedger    []member

	tick        int
	pending     []*Ticket
	history     map[string][]string // notes pre-rendered at their file depth
	historyIDs  []string
	damaged     map[string]bool
	settledRuns []value
	cfg         Config

	events   []Event
	warnings []string
	opts     Options
	sizeHint int // bytes of the file this store was parsed from
	idx      *index
	dict     *textidx.Dict
	file     *fileState
}

// New returns an empty store with opts.Config, or DefaultConfig() when that
// is nil.
func New(name string, opts Options) *Store {
	s := &Store{
		name:           name,
		MaxEnergy:      DefaultMaxEnergy,
		Upkeep:         DefaultUpkeep,
		byID:           map[string]*Entry{},
		deadIDs:        map[string]int{},
		history:        map[string][]string{},
		damaged:        map[string]bool{},
		cfg:            DefaultConfig(),
		hasLedger:      true,
		hasSettledRuns: true,
		hasLedgerCfg:   true,
	}
	if opts.Config != nil {
		s.cfg = *opts.Config
	}
	s.SetOptions(opts)
	return s
}

// SetOptions replaces the injected clock and id source (Config only matters
// to New).
func (s *Store) SetOptions(opts Options) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = ContentID
	}
	s.opts = opts
}

// Name returns the label the store was loaded under.
func (s *Store) Name() string { return s.name }

// TickCount returns the ledger's tick counter.
func (s *Store) TickCount() int { return s.tick }

// Config returns the persisted selection configuration.
func (s *Store) Config() Config { return s.cfg }

// SetConfig replaces the persisted configuration (sticky, like darwin-memo's
// --upkeep/--merge-threshold/--admission-window).
func (s *Store) SetConfig(c Config) {
	s.touchLedger()
	s.cfg = c
	s.hasLedgerCfg = true
}

// Living returns the living entries in insertion order. The slice must not
// be modified; the entries may be read.
func (s *Store) Living() []*Entry { return s.living }

// Graveyard returns the dead entries in burial order.
func (s *Store) Graveyard() []*Entry { return s.graveyard }

// Entry returns a living entry by id.
func (s *Store) Entry(id string) (*Entry, bool) {
	e, ok := s.byID[id]
	return e, ok
}

// Dead returns the most recent graveyard record of id.
func (s *Store) Dead(id string) (*Entry, bool) {
	i, ok := s.deadIDs[id]
	if !ok {
		return nil, false
	}
	return s.graveyard[i], true
}

// Pending returns the pending tickets in order.
func (s *Store) Pending() []*Ticket { return s.pending }

// Damaged reports whether id is in the damaged set.
func (s *Store) Damaged(id string) bool { return s.damaged[id] }

// Warnings returns what fail-soft loading dropped or defaulted.
func (s *Store) Warnings() []string { return s.warnings }

// History returns the notes of one entry, oldest first.
func (s *Store) History(id string) []Note {
	vs := s.history[id]
	out := make([]Note, len(vs))
	for i, raw := range vs {
		out[i] = noteOf(raw)
	}
	return out
}

// noteIndent is the indentation depth of a note in the file
// ($.ledger.history[id][i]).
const noteIndent = 4

// renderNote formats a note value as it appears in the file.
func renderNote(v value) string {
	w := pyWriter{pretty: true, indent: noteIndent}
	w.value(v)
	return string(w.buf)
}

// noteOf parses a pre-rendered note.
func noteOf(raw string) Note {
	v, _ := parseValue("note", []byte(raw))
	return Note{v}
}

// Note is one history note: either a legacy plain string or a structured
// object {"tick","ts","text","event",...}.
type Note struct{ v value }

// Legacy reports whether the note is a plain string.
func (n Note) Legacy() bool { return n.v.k == kString }

// Text returns the note's human-readable text.
func (n Note) Text() string {
	if n.v.k == kString {
		return n.v.s
	}
	return n.v.str("text")
}

// Event returns the structured note's event ("settle", "death", ...).
func (n Note) Event() string { return n.v.str("event") }

// Cause returns the cause of a death or burial note.
func (n Note) Cause() string { return n.v.str("cause") }

// Source returns the settle source recorded on the note.
func (n Note) Source() string { return n.v.str("source") }

// Tick returns the structured note's tick.
func (n Note) Tick() (int, bool) { return n.v.intField("tick") }

// Credit returns the credit recorded on a settle note.
func (n Note) Credit() (float64, bool) { return n.v.numField("credit") }

// JSON returns the note as compact JSON.
func (n Note) JSON() string { return string(compactPy(n.v)) }

// ---------------------------------------------------------------------------
// Parsing

// Parse reads a store from data. name labels errors (usually the file name).
// Malformed JSON or a wrong structure gives a *FormatError naming the JSON
// path; hostile but well-formed ledger fields are handled fail-soft as
// darwin-memo does (they are reported by Warnings).
func Parse(name string, data []byte) (*Store, error) {
	return ParseWith(name, data, Options{})
}

// ParseWith is Parse with injected options.
func ParseWith(name string, data []byte, opts Options) (*Store, error) {
	s := New(name, opts)
	s.sizeHint = len(data)
	s.hasLedger, s.hasSettledRuns, s.hasLedgerCfg = false, false, false
	// Options.Config is the config of a store New creates: a loaded store
	// without a ledger.config gets darwin-memo's defaults, as in darwin-memo.
	s.cfg = DefaultConfig()
	p := &parser{file: name, data: data}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.syntaxErr(0, "unexpected UTF-8 byte-order mark; save the file as UTF-8 without BOM")
	}
	if err := p.expectKind(kObject, "a JSON object with config, entries and graveyard"); err != nil {
		return nil, err
	}
	var haveCfg, haveEntries, haveGrave bool
	var ledgerVal *value
	spec := speculateLedger(name, data, opts)
	err := p.object(func(key string) error {
		switch key {
		case "config":
			haveCfg = true
			return s.parseStoreConfig(p)
		case "entries":
			haveEntries = true
			s.living = s.living[:0]
			clear(s.byID)
			return p.entryList(func(e *Entry, i int) error {
				if _, dup := s.byID[e.ID]; dup {
					return p.structErr("duplicate living entry id %q; each living id must be unique", e.ID)
				}
				s.byID[e.ID] = e
				s.living = append(s.living, e)
				return nil
			}, s.opts.NewID)
		case "graveyard":
			haveGrave = true
			if s.opts.ConsultOnly {
				return p.skip(0, true)
			}
			s.graveyard = s.graveyard[:0]
			clear(s.deadIDs)
			return p.entryList(func(e *Entry, i int) error {
				s.deadIDs[e.ID] = len(s.graveyard)
				s.graveyard = append(s.graveyard, e)
				return nil
			}, s.opts.NewID)
		case "retriever":
			v, err := p.value(0)
			if err != nil {
				return err
			}
			s.retriever = &v
			return nil
		case "ledger":
			if r := spec.result(p.pos); r != nil {
				s.history, s.historyIDs = r.store.history, r.store.historyIDs
				s.warnings = append(s.warnings, r.store.warnings...)
				p.pos = r.end
				ledgerVal = &r.v
				return nil
			}
			v, err := s.parseLedger(p)
			if err != nil {
				return err
			}
			ledgerVal = &v
			return nil
		default:
			v, err := p.value(0)
			if err != nil {
				return err
			}
			s.extraTop = setMember(s.extraTop, key, v)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	for _, k := range []struct {
		ok   bool
		name string
	}{{haveCfg, "config"}, {haveEntries, "entries"}, {haveGrave, "graveyard"}} {
		if !k.ok {
			return nil, &FormatError{File: name, Path: "$", Msg: fmt.Sprintf("missing required key %q; a darwin-memo store has config, entries and graveyard", k.name)}
		}
	}
	if ledgerVal != nil {
		if err := s.loadLedger(*ledgerVal); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) parseStoreConfig(p *parser) error {
	if err := p.expectKind(kObject, "an object with max_energy and upkeep"); err != nil {
		return err
	}
	return p.object(func(key string) error {
		switch key {
		case "max_energy":
			f, err := p.float()
			s.MaxEnergy = f
			return err
		case "upkeep":
			f, err := p.float()
			s.Upkeep = f
			return err
		default:
			v, err := p.value(0)
			s.extraCfg = setMember(s.extraCfg, key, v)
			return err
		}
	})
}

// entryList parses an array of entry objects.
func (p *parser) entryList(add func(*Entry, int) error, newID func(...string) string) error {
	if err := p.expectKind(kArray, "a list of entries"); err != nil {
		return err
	}
	return p.array(func(i int) error {
		e, err := p.entry(newID)
		if err != nil {
			return err
		}
		return add(e, i)
	})
}

// entry parses one entry object, refusing unknown keys as darwin-memo does.
func (p *parser) entry(newID func(...string) string) (*Entry, error) {
	if err := p.expectKind(kObject, "an entry object"); err != nil {
		return nil, err
	}
	e := &Entry{Kind: KindExplicit, Energy: SpawnEnergy, LastUsedCycle: -1}
	var haveQ, haveA, haveID bool
	err := p.object(func(key string) error {
		var err error
		switch key {
		case "question":
			e.Question, err = p.str()
			haveQ = true
		case "answer":
			e.Answer, err = p.str()
			haveA = true
		case "kind":
			if err = p.expectKind(kString, "a string"); err != nil {
				return err
			}
			var b []byte
			if b, err = p.rawBytes(); err != nil {
				return err
			}
			k, ok := internKind(b)
			if !ok {
				return p.structErr("unknown kind %q; use one of explicit, inferred, entity, cross_doc, experience, consolidated", b)
			}
			e.Kind = k
		case "sources":
			e.Sources, err = p.strList()
		case "energy":
			e.Energy, err = p.float()
		case "born_cycle":
			e.BornCycle, err = p.int()
		case "recorded_ts":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.RecordedTS = s
			}
		case "last_used_cycle":
			e.LastUsedCycle, err = p.int()
		case "uses":
			e.Uses, err = p.int()
		case "lineage":
			e.Lineage, err = p.strList()
		case "pinned":
			e.Pinned, err = p.boolean()
		case "probation":
			e.Probation, err = p.int()
		case "juvenile":
			e.Juvenile, err = p.int()
		case "imported_from":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.ImportedFrom = &s
			} else {
				e.ImportedFrom = nil
			}
		case "imported_at":
			var s string
			var ok bool
			s, ok, err = p.strOrNull()
			if ok {
				e.ImportedAt = &s
			} else {
				e.ImportedAt = nil
			}
		case "id":
			e.ID, err = p.str()
			haveID = true
		default:
			return p.structErr("unknown entry key %q; darwin-memo refuses unknown entry keys, so keep extra metadata in sources labels", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveQ || !haveA {
		missing := "question"
		if haveQ {
			missing = "answer"
		}
		return nil, p.structErr("entry is missing required key %q", missing)
	}
	if e.Sources == nil {
		e.Sources = []string{}
	}
	if e.Lineage == nil {
		e.Lineage = []string{}
	}
	if !haveID {
		e.ID = newID("entry", e.Question, e.Answer)
	}
	return e, nil
}

// ledgerSpec is a ledger block parsed concurrently with the entries.
type ledgerSpec struct {
	start int
	done  chan ledgerResult
}

type ledgerResult struct {
	store *Store // holds history, historyIDs and warnings
	v     value
	end   int
	err   error
}

// speculateLedger starts parsing the ledger block of a large store on
// another core while the caller parses the entries. Python's indent=2
// output puts the top-level key at "\n  \"ledger\": " (a raw newline can
// only be whitespace between tokens, so the first match is normally the
// one key; a forward search is several times faster than a backward one
// at 100 MB); the result is used only if the sequential parser reaches a
// top-level "ledger" value at exactly that offset, so a wrong guess costs
// time, never correctness.
func speculateLedger(name string, data []byte, opts Options) *ledgerSpec {
	const marker = "\n  \"ledger\": "
	if len(data) < 1<<20 || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	i := bytes.Index(data, []byte(marker))
	if i < 0 {
		return nil
	}
	sp := &ledgerSpec{start: i + len(marker), done: make(chan ledgerResult, 1)}
	go func() {
		tmp := New(name, opts)
		p := &parser{file: name, data: data, pos: sp.start, path: []pathElem{{key: "ledger", index: -1}}}
		v, err := tmp.parseLedger(p)
		sp.done <- ledgerResult{store: tmp, v: v, end: p.pos, err: err}
	}()
	return sp
}

// result returns the speculative parse if it started at pos and succeeded.
func (sp *ledgerSpec) result(pos int) *ledgerResult {
	if sp == nil || sp.start != pos {
		return nil
	}
	r := <-sp.done
	sp.start = -1 // a repeated "ledger" key is parsed sequentially
	if r.err != nil {
		return nil
	}
	return &r
}

// parseLedger streams the ledger block: history notes are rendered straight
// into their output form; the other keys are collected for loadLedger.
func (s *Store) parseLedger(p *parser) (value, error) {
	k, err := p.peekKind()
	if err != nil {
		return value{}, err
	}
	if k != kObject {
		return p.value(0) // loadLedger reports the wrong type
	}
	v := value{k: kObject}
	w := &pyWriter{pretty: true}
	err = p.object(func(key string) error {
		if key != "history" {
			x, err := p.value(0)
			v.obj = setMember(v.obj, key, x)
			return err
		}
		v.obj = setMember(v.obj, key, vNull()) // keeps the key's position
		if s.opts.ConsultOnly {
			return p.skip(0, true)
		}
		clear(s.history)
		s.historyIDs = s.historyIDs[:0]
		if k, err := p.peekKind(); err != nil {
			return err
		} else if k != kObject {
			s.warn("$.ledger.history is not an object; ignored")
			_, err := p.value(0)
			return err
		}
		return p.object(func(id string) error {
			if k, err := p.peekKind(); err != nil {
				return err
			} else if k != kArray {
				s.warn(fmt.Sprintf("$.ledger.history[%q] is not a list; dropped", id))
				_, err := p.value(0)
				return err
			}
			notes := []string{}
			err := p.array(func(int) error {
				raw, err := p.renderValue(w, noteIndent)
				notes = append(notes, raw)
				return err
			})
			if err != nil {
				return err
			}
			if _, ok := s.history[id]; !ok {
				s.historyIDs = append(s.historyIDs, id)
			}
			s.history[id] = notes
			return nil
		})
	})
	return v, err
}

// loadLedger applies the fail-soft ledger load of semantics §2.3.
func (s *Store) loadLedger(v value) error {
	if v.k != kObject {
		return &FormatError{File: s.name, Path: "$.ledger", Msg: fmt.Sprintf("expected an object, got %s", v.k)}
	}
	s.hasLedger = true
	for _, mb := range v.obj {
		switch mb.key {
		case "tick_count":
			if mb.val.k == kNumber && !mb.val.isF {
				if t, ok := v.intField("tick_count"); ok {
					s.tick = t
					continue
				}
			}
			s.warn("$.ledger.tick_count is not an integer; starting at tick 0")
		case "pending":
			if mb.val.k != kArray {
				s.warn("$.ledger.pending is not a list; ignored")
				continue
			}
			for i, tv := range mb.val.arr {
				t, why := ticketFromValue(tv)
				if t == nil {
					s.warn(fmt.Sprintf("$.ledger.pending[%d] skipped: %s", i, why))
					continue
				}
				s.pending = append(s.pending, t)
			}
		case "history":
			// streamed by parseLedger
		case "damaged":
			if mb.val.k != kArray {
				s.warn("$.ledger.damaged is not a list; ignored")
				continue
			}
			for _, d := range mb.val.arr {
				if d.k == kString {
					s.damaged[d.s] = true
				}
			}
		case "settled_runs":
			s.hasSettledRuns = true
			if mb.val.k != kArray {
				s.warn("$.ledger.settled_runs is not a list; ignored")
				continue
			}
			for _, r := range mb.val.arr {
				if r.k == kObject {
					s.settledRuns = append(s.settledRuns, r)
				}
			}
		case "config":
			s.hasLedgerCfg = true
			s.cfg = s.configFromValue(mb.val)
		default:
			s.extraLedger = append(s.extraLedger, mb)
		}
	}
	return nil
}

func (s *Store) warn(msg string) { s.warnings = append(s.warnings, s.name+": "+msg) }

var ticketKeys = map[string]bool{"query": true, "answer": true, "deciding_entry": true, "supporting_entries": true, "born_tick": true, "id": true, "binding": true}

// ticketFromValue builds a ticket, or returns why it was skipped.
func ticketFromValue(v value) (*Ticket, string) {
	if v.k != kObject {
		return nil, "not an object"
	}
	for _, mb := range v.obj {
		if !ticketKeys[mb.key] {
			return nil, fmt.Sprintf("unknown key %q", mb.key)
		}
	}
	t := &Ticket{raw: v}
	for _, req := range []string{"query", "answer", "deciding_entry", "supporting_entries", "born_tick", "id"} {
		if _, ok := v.get(req); !ok {
			return nil, fmt.Sprintf("missing key %q", req)
		}
	}
	q, _ := v.get("query")
	a, _ := v.get("answer")
	d, _ := v.get("deciding_entry")
	sup, _ := v.get("supporting_entries")
	id, _ := v.get("id")
	bt, ok := v.intField("born_tick")
	if q.k != kString || a.k != kString || id.k != kString || !ok || sup.k != kArray || (d.k != kString && d.k != kNull) {
		return nil, "a field has the wrong type"
	}
	t.Query, t.Answer, t.ID, t.BornTick = q.s, a.s, id.s, bt
	if d.k == kString {
		t.DecidingEntry = d.s
	}
	t.SupportingEntries = []string{}
	for _, x := range sup.arr {
		if x.k != kString {
			return nil, "supporting_entries holds a non-string"
		}
		t.SupportingEntries = append(t.SupportingEntries, x.s)
	}
	return t, ""
}

// configFromValue rebuilds the config field by field (fail-soft).
func (s *Store) configFromValue(v value) Config {
	c := DefaultConfig()
	if v.k != kObject {
		s.warn("$.ledger.config is not an object; using defaults")
		return c
	}
	s.cfgOrder = s.cfgOrder[:0]
	isFloat := func(x value) bool { return x.k == kNumber }
	for _, mb := range v.obj {
		x := mb.val
		bad := false
		switch mb.key {
		case "credit_gain", "supporting_share", "merge_threshold", "experience_min_delta", "experience_dedup_threshold":
			if !isFloat(x) {
				bad = true
				break
			}
			f := x.float()
			switch mb.key {
			case "credit_gain":
				c.CreditGain = f
			case "supporting_share":
				c.SupportingShare = f
			case "merge_threshold":
				c.MergeThreshold = f
			case "experience_min_delta":
				c.ExperienceMinDelta = f
			case "experience_dedup_threshold":
				c.ExperienceDedupThreshold = f
			}
		case "resource_scale", "conflict_threshold":
			var fp *float64
			switch {
			case x.k == kNull:
			case isFloat(x):
				f := x.float()
				fp = &f
			default:
				bad = true
			}
			if !bad {
				if mb.key == "resource_scale" {
					c.ResourceScale = fp
				} else {
					c.ConflictThreshold = fp
				}
			}
		case "consolidate_every", "admission_window":
			i, ok := v.intField(mb.key)
			if !ok || x.isF {
				bad = true
				break
			}
			if mb.key == "consolidate_every" {
				c.ConsolidateEvery = i
			} else {
				c.AdmissionWindow = i
			}
		case "write_experience", "upkeep_requires_settlement":
			if x.k != kBool {
				bad = true
				break
			}
			if mb.key == "write_experience" {
				c.WriteExperience = x.b
			} else {
				c.UpkeepRequiresSettlement = x.b
			}
		case "merge_source_policy":
			if x.k != kString || (x.s != "off" && x.s != "shared" && x.s != "identical") {
				bad = true
				break
			}
			c.MergeSourcePolicy = x.s
		default:
			known, wrong := c.setExtConfig(mb.key, x)
			if !known {
				s.warn(fmt.Sprintf("$.ledger.config.%s is not a known setting; dropped", mb.key))
				continue
			}
			bad = wrong
		}
		if bad {
			s.warn(fmt.Sprintf("$.ledger.config.%s has the wrong type; using the default", mb.key))
		}
		s.cfgOrder = append(s.cfgOrder, mb.key)
	}
	return c
}

// ---------------------------------------------------------------------------
// Marshalling

// Marshal returns the store as darwin-memo writes it: Python json.dumps with
// indent=2, ensure_ascii, no trailing newline. The same store state always
// gives the same bytes.
func (s *Store) Marshal() ([]byte, error) {
	if s.opts.ConsultOnly {
		return nil, errConsultOnly
	}
	w := &pyWriter{pretty: true, buf: make([]byte, 0, max(s.sizeHint+s.sizeHint/8, 4096+600*(len(s.living)+len(s.graveyard))))}
	s.marshal(w)
	return w.buf, nil
}

// WriteTo streams the bytes Marshal returns to out, without holding the
// whole document in memory.
func (s *Store) WriteTo(out io.Writer) (int64, error) {
	if s.opts.ConsultOnly {
		return 0, errConsultOnly
	}
	w := &pyWriter{pretty: true, buf: make([]byte, 0, 1<<17), out: out}
	s.marshal(w)
	w.flush(true)
	return w.n, w.err
}

func (s *Store) marshal(w *pyWriter) {
	w.open('{')
	w.key("config")
	w.open('{')
	w.key("max_energy")
	w.float(s.MaxEnergy)
	w.field("upkeep")
	w.float(s.Upkeep)
	for _, mb := range s.extraCfg {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
	w.field("entries")
	w.entries(s.living)
	w.field("graveyard")
	w.entries(s.graveyard)
	if s.retriever != nil {
		w.field("retriever")
		w.value(*s.retriever)
	}
	if s.hasLedger {
		w.field("ledger")
		s.writeLedger(w)
	}
	for _, mb := range s.extraTop {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
}

func (w *pyWriter) entries(es []*Entry) {
	if len(es) == 0 {
		w.buf = append(w.buf, '[', ']')
		return
	}
	w.open('[')
	for i, e := range es {
		if i > 0 {
			w.sep()
		}
		w.entry(e)
		w.flush(false)
		if w.stopped() {
			return
		}
	}
	w.close(']')
}

func (w *pyWriter) entry(e *Entry) {
	w.open('{')
	w.key("question")
	w.str(e.Question)
	w.field("answer")
	w.str(e.Answer)
	w.field("kind")
	w.str(string(e.Kind))
	w.field("sources")
	w.strs(e.Sources)
	w.field("energy")
	w.float(e.Energy)
	w.field("born_cycle")
	w.int(e.BornCycle)
	w.field("recorded_ts")
	w.str(e.RecordedTS)
	w.field("last_used_cycle")
	w.int(e.LastUsedCycle)
	w.field("uses")
	w.int(e.Uses)
	w.field("lineage")
	w.strs(e.Lineage)
	if e.Pinned {
		w.field("pinned")
		w.bool(true)
	}
	if e.Probation != 0 {
		w.field("probation")
		w.int(e.Probation)
	}
	if e.Juvenile != 0 {
		w.field("juvenile")
		w.int(e.Juvenile)
	}
	if e.ImportedFrom != nil {
		w.field("imported_from")
		w.str(*e.ImportedFrom)
	}
	if e.ImportedAt != nil {
		w.field("imported_at")
		w.str(*e.ImportedAt)
	}
	w.field("id")
	w.str(e.ID)
	w.close('}')
}

func (s *Store) writeLedger(w *pyWriter) {
	w.open('{')
	w.key("tick_count")
	w.int(s.tick)
	w.field("pending")
	if len(s.pending) == 0 {
		w.buf = append(w.buf, "[]"...)
	} else {
		w.open('[')
		for i, t := range s.pending {
			if i > 0 {
				w.sep()
			}
			w.value(t.toValue())
		}
		w.close(']')
	}
	w.field("history")
	if len(s.historyIDs) == 0 {
		w.buf = append(w.buf, "{}"...)
	} else {
		w.open('{')
		for i, id := range s.historyIDs {
			if i > 0 {
				w.sep()
			}
			w.key(id)
			notes := s.history[id]
			if len(notes) == 0 {
				w.buf = append(w.buf, "[]"...)
				continue
			}
			w.open('[')
			for j, raw := range notes {
				if j > 0 {
					w.sep()
				}
				w.buf = append(w.buf, raw...)
			}
			w.close(']')
			w.flush(false)
			if w.stopped() {
				return
			}
		}
		w.close('}')
	}
	w.field("damaged")
	w.strs(sortedKeys(s.damaged))
	if s.hasSettledRuns || len(s.settledRuns) > 0 {
		w.field("settled_runs")
		w.value(value{k: kArray, arr: s.settledRuns})
	}
	if s.hasLedgerCfg {
		w.field("config")
		w.value(s.configValue())
	}
	for _, mb := range s.extraLedger {
		w.field(mb.key)
		w.value(mb.val)
	}
	w.close('}')
}

func (t *Ticket) toValue() value {
	if t.raw.k == kObject {
		return t.raw
	}
	d := vNull()
	if t.DecidingEntry != "" {
		d = vStr(t.DecidingEntry)
	}
	return vObj(
		m("query", vStr(t.Query)),
		m("answer", vStr(t.Answer)),
		m("deciding_entry", d),
		m("supporting_entries", vStrs(t.SupportingEntries)),
		m("born_tick", vInt(t.BornTick)),
		m("id", vStr(t.ID)),
		m("binding", vNull()),
	)
}

func optFloat(f *float64) value {
	if f == nil {
		return vNull()
	}
	return vFloat(*f)
}

// configValue renders the config in the loaded key order, then any missing
// keys in darwin-memo's field order.
func (s *Store) configValue() value {
	c := s.cfg
	field := func(k string) value {
		switch k {
		case "credit_gain":
			return vFloat(c.CreditGain)
		case "supporting_share":
			return vFloat(c.SupportingShare)
		case "consolidate_every":
			return vInt(c.ConsolidateEvery)
		case "merge_threshold":
			return vFloat(c.MergeThreshold)
		case "write_experience":
			return vBool(c.WriteExperience)
		case "experience_min_delta":
			return vFloat(c.ExperienceMinDelta)
		case "experience_dedup_threshold":
			return vFloat(c.ExperienceDedupThreshold)
		case "resource_scale":
			return optFloat(c.ResourceScale)
		case "admission_window":
			return vInt(c.AdmissionWindow)
		case "upkeep_requires_settlement":
			return vBool(c.UpkeepRequiresSettlement)
		case "merge_source_policy":
			return vStr(c.MergeSourcePolicy)
		case "conflict_threshold":
			return optFloat(c.ConflictThreshold)
		default:
			return c.extConfigValue(k)
		}
	}
	var ms []member
	seen := map[string]bool{}
	for _, k := range s.cfgOrder {
		if !seen[k] {
			seen[k] = true
			ms = append(ms, m(k, field(k)))
		}
	}
	for _, k := range configKeys {
		if !seen[k] {
			ms = append(ms, m(k, field(k)))
		}
	}
	for _, k := range extConfigKeys {
		if !seen[k] && c.extConfigSet(k) {
			ms = append(ms, m(k, field(k)))
		}
	}
	return vObj(ms...)
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// String summarises the store for debugging.
func (s *Store) String() string {
	return fmt.Sprintf("%s: %d living, %d dead, tick %d, %d pending", s.name, len(s.living), len(s.graveyard), s.tick, len(s.pending))
}
