package lessons

import (
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
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

func validKind(k string) bool {
	switch Kind(k) {
	case KindExplicit, KindInferred, KindEntity, KindCrossDoc, KindExperience, KindConsolidated:
		return true
	}
	return false
}

// Economic constants (semantics §3.1).
const (
	SpawnEnergy      = 1.0
	DefaultUpkeep    = 0.05
	DefaultMaxEnergy = 5.0
	AliveThreshold   = 1e-9
	DefaultExpire    = 50
	HistoryCap       = 100
	DefaultK         = 3
	DefaultProbation = 3
	damageThreshold  = -1e-9
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
	// StaleUpkeep is the per-tick upkeep a lesson pays instead of a lower one
	// while its citations are stale: a merged pull request removed the last
	// file it cited and no settlement has credited it since
	// (Store.CitationsStale). 0 is off. Key "stale_upkeep".
	StaleUpkeep float64
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
// the selection benchmark recommends, and this project's economics
// (issue 13; docs/tuning.md has the evidence). With upkeep 0.05 per tick: an
// entry pays 0.015 per tick while idle, 0.0015 once tenured (after one
// unbundled gain since its last loss), and 0.09 for every settled ticket
// that retrieved it; a PR's delta is split equally among its tickets, its
// regressions (when known) are charged apart from its improvements, and a
// harmful outcome moves up to 1.2 energy. A store's persisted ledger.config
// always wins over it.
func RecommendedConfig() Config {
	c := DefaultConfig()
	c.SupportingShare = 0
	c.RetrievalUpkeep = 0.09
	idle := 0.3
	c.IdleUpkeepScale = &idle
	c.HarmGain = 1.2
	c.TenureAfter = 1
	c.TenureUpkeepScale = 0.1
	c.BundleSplit = true
	c.SegregateLosses = true
	c.StaleUpkeep = RecommendedStaleUpkeep
	return c
}

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

// Ticket is the record of one consult: the query, the answer given and the
// entries that produced it (its provenance).
type Ticket struct {
	ID                string
	Query             string
	Answer            string
	DecidingEntry     string // "" for none (null)
	SupportingEntries []string
	BornTick          int

	raw pyjson.Value // as loaded (kept for byte-exact rewrite); zero for new tickets
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
	// Config is the selection configuration a store created by New (or by
	// LoadOrNew for a missing file) starts with. Default: DefaultConfig().
	// A loaded store never uses it: it keeps its persisted ledger.config,
	// or gets DefaultConfig() when the file has none (as in darwin-memo).
	Config *Config
	// LockWait is how long LoadLocked and Save wait for another process to
	// release the store's lock before failing with storedoc.ErrLocked. Zero means
	// storedoc.DefaultLockWait; negative means fail at once.
	LockWait time.Duration
	// Retrieval is the ranking Retrieve and Decide use when neither the
	// call nor the store's config ("retrieval") names one. Default: BM25F.
	Retrieval Retrieval
	// ConsultOnly loads a store for a process that only consults it
	// (decide, query): the graveyard, which consulting never reads, is
	// checked as JSON and passed over (Dead finds nothing), and
	// ledger.history is checked and kept as bytes, the notes rendered only
	// when something reads them (consulting does not). Such a store cannot
	// be written: Marshal and WriteTo fail.
	ConsultOnly bool
	// LazyHistory loads a store whole, except that ledger.history is checked
	// as JSON and kept as bytes until something reads, adds or writes notes:
	// they are then all rendered as a full load renders them. The store
	// behaves as a full load does; a load that reads no notes (the action's
	// view of the base branch's store) skips rendering them.
	LazyHistory bool
}

// ContentID is the id of a lesson or ticket derived from its content: storedoc.ContentID, the id
// the three-way merge gives an entry without one.
func ContentID(parts ...string) string { return storedoc.ContentID(parts...) }

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

	tick        int
	pending     []*Ticket
	notes       historyNotes
	damaged     map[string]bool
	settledRuns []settledRun
	cfg         Config

	events   []storedoc.Event
	warnings []string
	opts     Options

	layout layout                // what the file holds beyond the model
	lib    *rank.Library[*Entry] // library(), nil until first asked
	dict   *rank.Dict
	file   *storedoc.File
}

// historyNotes is ledger.history: each lesson's notes, pre-rendered as the
// file spells them at their depth, under ids in the order the file lists
// them.
type historyNotes struct {
	byID map[string][]string
	ids  []string
	// kept is, in a consult-only or lazy load (Options.ConsultOnly,
	// Options.LazyHistory), the bytes of ledger.history, checked but not
	// read until something reads notes (Store.loadHistory).
	kept []byte
}

// set gives id these notes; an id new to the history goes last.
func (h *historyNotes) set(id string, notes []string) {
	if _, ok := h.byID[id]; !ok {
		h.ids = append(h.ids, id)
	}
	h.byID[id] = notes
}

// layout is what a store file holds beyond the model, kept so that the
// store is written back as darwin-memo would write it: the keys it carries
// untouched, which optional sections the file had, and its config keys'
// order.
type layout struct {
	retriever  *pyjson.Value       // carried through untouched
	extensions storedoc.Extensions // unknown top-level keys, in original order
	extraCfg   []pyjson.Member     // unknown store-config keys

	hasLedger      bool
	hasSettledRuns bool
	hasLedgerCfg   bool
	cfgOrder       []string // config keys in loaded order
	extraLedger    []pyjson.Member

	sizeHint int // bytes of the file this store was parsed from
}

// New returns an empty store with opts.Config, or DefaultConfig() when that
// is nil.
func New(name string, opts Options) *Store {
	s := &Store{
		name:      name,
		MaxEnergy: DefaultMaxEnergy,
		Upkeep:    DefaultUpkeep,
		byID:      map[string]*Entry{},
		deadIDs:   map[string]int{},
		notes:     historyNotes{byID: map[string][]string{}},
		damaged:   map[string]bool{},
		cfg:       DefaultConfig(),
		layout:    layout{hasLedger: true, hasSettledRuns: true, hasLedgerCfg: true},
	}
	if opts.Config != nil {
		s.cfg = *opts.Config
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s.opts = opts
	return s
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
	s.layout.hasLedgerCfg = true
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
	vs := s.notesOf(id)
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
func renderNote(v pyjson.Value) string {
	w := pyjson.NewWriter(nil, noteIndent)
	w.Value(v)
	return string(w.Bytes())
}

// noteOf parses a pre-rendered note.
func noteOf(raw string) Note {
	v, _ := pyjson.Parse("note", []byte(raw))
	return Note{v}
}

// Note is one history note: either a legacy plain string or a structured
// object {"tick","ts","text","event",...}.
type Note struct{ v pyjson.Value }

// Legacy reports whether the note is a plain string.
func (n Note) Legacy() bool { return n.v.Kind() == pyjson.KindString }

// Text returns the note's human-readable text.
func (n Note) Text() string {
	if n.v.Kind() == pyjson.KindString {
		return n.v.Str()
	}
	return n.v.Field("text").Str()
}

// Event returns the structured note's event ("settle", "death", ...).
func (n Note) Event() string { return n.v.Field("event").Str() }

// Cause returns the cause of a death or burial note.
func (n Note) Cause() string { return n.v.Field("cause").Str() }

// Tick returns the structured note's tick.
func (n Note) Tick() (int, bool) { return n.v.Field("tick").Int() }

// Credit returns the credit recorded on a settle note.
func (n Note) Credit() (float64, bool) { return n.v.Field("credit").Num() }

// warn records what fail-soft loading dropped or defaulted (Warnings).
func (s *Store) warn(msg string) { s.warnings = append(s.warnings, s.name+": "+msg) }
