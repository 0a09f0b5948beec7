package lessons

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// Finding is one doctor diagnosis.
type Finding struct {
	Code     string         `json:"code"`
	Severity string         `json:"severity"` // "error" or "warn"
	Summary  string         `json:"summary"`
	Evidence map[string]any `json:"evidence"`
	Fix      string         `json:"fix"`
}

// EvidenceWindow counts what the doctor looked at.
type EvidenceWindow struct {
	Events  int `json:"events"`
	Ticks   int `json:"ticks"`
	Settles int `json:"settles"`
	Alive   int `json:"alive"`
	Graves  int `json:"graves"`
}

// Diagnosis is the doctor's report.
type Diagnosis struct {
	Findings       []Finding      `json:"findings"`
	EvidenceWindow EvidenceWindow `json:"evidence_window"`
	Diagnosed      bool           `json:"diagnosed"`
}

// HasErrors reports whether any finding has severity "error" (exit 1).
func (d *Diagnosis) HasErrors() bool {
	return slices.ContainsFunc(d.Findings, func(f Finding) bool { return f.Severity == "error" })
}

// CheckBalances refuses a store whose balances are not finite numbers: the
// commands that compute balances (settle, tick) run it before any
// arithmetic (the parser accepts NaN and Infinity, as darwin-memo's does),
// and Doctor reports what it refuses.
func (s *Store) CheckBalances() error {
	for _, e := range s.living {
		if math.IsNaN(e.Energy) || math.IsInf(e.Energy, 0) {
			return fmt.Errorf("lesson %s has energy %v in %s, so no balance can be computed; fix the number in the file (or restore it with git) and retry; nothing was changed", e.ID, e.Energy, s.Name())
		}
	}
	return nil
}

// Refusals are the checks by which other commands refuse a loaded store, as
// Doctor findings: every one of them is a reason a command would stop.
func (s *Store) refusals() []Finding {
	var out []Finding
	if err := s.CheckBalances(); err != nil {
		out = append(out, Finding{"energy_not_finite", "error", err.Error(), map[string]any{}, "settle and tick refuse this store; put a number back (or restore the file with git)"})
	}
	if err := storedoc.CheckWritable(s.Path()); err != nil {
		out = append(out, Finding{"store_read_only", "warn", err.Error(), map[string]any{"path": s.Path()}, "commands that change the store (add, tick, settle, pin, ...) refuse it; chmod u+w it if it should change"})
	}
	return out
}

// Doctor diagnoses a store and its event log (semantics §9): is the economy
// being fed with evidence, or is it ticking toward extinction? It also
// reports everything for which another command would refuse the store
// (refusals).
func (s *Store) Doctor(events []storedoc.Event) *Diagnosis {
	d := &Diagnosis{Findings: s.refusals()}
	if d.Findings == nil {
		d.Findings = []Finding{}
	}
	var decides, silent, settles, nonzero, expired, dropped, untracked, windowCredited, nonCI, ticks int
	for _, ev := range events {
		switch ev.Name() {
		case "decide":
			decides++
			if ev.Silent() {
				silent++
			}
		case "settle":
			settles++
			if dl, ok := ev.Delta(); ok && dl != 0 {
				nonzero++
			}
			ap, ok := ev.Get("applied")
			if !ok {
				untracked++
			} else {
				for _, a := range ap.Elems() {
					if c, ok := a.Field("credit").Num(); ok && c != 0 {
						windowCredited++
					}
				}
			}
			if src := ev.Source(); src != "ci" {
				nonCI++
			}
		case "expired":
			expired++
		case "settle_dropped":
			dropped++
		case "tick":
			ticks++
		}
	}
	lastCredited := -1
	s.loadHistory()
	for _, id := range s.notes.ids {
		for _, raw := range s.notes.byID[id] {
			n := noteOf(raw)
			if n.Event() != "settle" {
				continue
			}
			c, ok := n.Credit()
			t, tok := n.Tick()
			if ok && tok && c != 0 && t > lastCredited {
				lastCredited = t
			}
		}
	}
	earned := nonzero > 0 || lastCredited >= 0
	d.EvidenceWindow = EvidenceWindow{Events: len(events), Ticks: ticks, Settles: settles, Alive: len(s.living), Graves: len(s.graveyard)}
	d.Diagnosed = ticks > 0 || settles > 0 || len(s.graveyard) > 0
	add := func(code, sev, summary, fix string, ev map[string]any) {
		d.Findings = append(d.Findings, Finding{code, sev, summary, ev, fix})
	}

	silentMajority := false
	if !earned && decides >= 10 && float64(silent)/float64(decides) > 0.8 {
		silentMajority = true
		add("silent_majority", "error",
			fmt.Sprintf("%d of %d decides were silent and no settlement ever moved credit", silent, decides),
			"the store has no lessons that match what agents ask; add lessons for the questions agents actually ask (darwin-memo add), or check that decide gets the real task text",
			map[string]any{"decides": decides, "silent": silent})
	}
	if !earned && !silentMajority && settles-expired >= 5 && nonzero == 0 {
		add("env_never_paid", "error",
			fmt.Sprintf("%d settlements landed but every delta was 0", settles-expired),
			"the CI measurement never reports a change; check that settle reads the real test results at base and head (JUnit reports or check runs), not a constant",
			map[string]any{"settles": settles, "expired": expired, "nonzero": nonzero})
	}
	if graves := len(s.graveyard); graves >= 3 && !earned && windowCredited == 0 && untracked == 0 {
		starved := 0
		heirs := s.heirs()
		for _, g := range s.graveyard {
			if s.causeOf(g.ID, heirs) == "starved" && !s.hasSettleNote(g.ID) {
				starved++
			}
		}
		if float64(starved)/float64(graves) >= 0.5 {
			add("starvation_cliff", "error",
				fmt.Sprintf("%d of %d dead lessons starved without a single settlement", starved, graves),
				"lessons die of upkeep because no PR ever settles a ticket; make agents paste the ticket line that decide prints into their PR body, and tick only when a settlement landed",
				map[string]any{"graves": graves, "starved_unsettled": starved})
		}
	}
	if lastCredited >= 0 {
		quiet := s.tick - lastCredited
		runway, canStarve := 0.0, false
		for _, e := range s.living {
			if tts := s.TicksToStarvation(e); tts != nil {
				canStarve = true
				runway = math.Max(runway, *tts)
			}
		}
		if (len(s.living) == 0 || canStarve) && quiet >= 10 && float64(quiet) >= runway {
			add("ticking_without_evidence", "warn",
				fmt.Sprintf("no credited settlement for %d ticks (last at tick %d), longer than the longest runway of %.1f ticks", quiet, lastCredited, runway),
				"the store is ticking without evidence and will go extinct; check that merged PRs carry tickets and that settle measures a non-zero delta",
				map[string]any{"last_credited": lastCredited, "tick_count": s.tick, "quiet": quiet, "runway": pyjson.JSONFloat(runway)})
		}
	}
	stale := 0
	for _, t := range s.pending {
		if s.tick-t.BornTick > DefaultExpire {
			stale++
		}
	}
	if stale > 0 {
		add("tickets_stale", "warn", fmt.Sprintf("%d pending tickets are older than %d ticks", stale, DefaultExpire),
			"settle or abandon them (darwin-memo abandon TICKET); they escrow their lessons until they expire", map[string]any{"stale": stale})
	}
	if dropped > silent {
		add("settles_dropped", "warn", fmt.Sprintf("%d settlements named unknown or already settled tickets", dropped),
			"PR bodies carry ticket ids this store never issued or already settled; paste the ticket line that decide printed for this change",
			map[string]any{"dropped": dropped, "silent_decides": silent})
	}
	if untracked > 0 {
		add("credit_untracked", "warn", fmt.Sprintf("%d settle events have no applied credit list (legacy log)", untracked),
			"older darwin-memo versions did not log applied credit; the numbers are exact only for newer events", map[string]any{"untracked": untracked})
	}
	if settles > 0 && (float64(nonCI)/float64(settles) > 0.5 || nonCI >= 5) {
		share := math.Round(float64(nonCI)/float64(settles)*100) / 100
		add("operator_settled", "warn", fmt.Sprintf("%d of %d settlements (%.2f) did not come from CI", nonCI, settles, share),
			"settle from CI (the darwin-memo action) so outcomes are measured, not claimed",
			map[string]any{"settles": settles, "not_ci": nonCI, "share": pyjson.JSONFloat(share)})
	}
	if len(s.warnings) > 0 {
		add("load_dropped_fields", "warn", fmt.Sprintf("%d ledger fields were malformed and dropped or defaulted on load", len(s.warnings)),
			"someone edited the ledger block by hand or a PR tampered with it; review the store's history", map[string]any{"warnings": s.warnings})
	}
	return d
}

func (s *Store) hasSettleNote(id string) bool {
	for _, raw := range s.notesOf(id) {
		n := noteOf(raw)
		if n.Event() == "settle" || n.Legacy() && strings.Contains(n.Text(), "credit") {
			return true
		}
	}
	return false
}

// heirs maps every id named in a lineage to the entry that holds it.
func (s *Store) heirs() map[string]*Entry {
	out := map[string]*Entry{}
	for _, list := range [][]*Entry{s.living, s.graveyard} {
		for _, e := range list {
			for _, l := range e.Lineage {
				if _, ok := out[l]; !ok {
					out[l] = e
				}
			}
		}
	}
	return out
}

// causeOf resolves why an entry died: "merged" (lineage, heirs), the last structured
// death or burial note's cause, a text search of the notes, or "unknown".
func (s *Store) causeOf(id string, heirs map[string]*Entry) string {
	if heirs[id] != nil {
		return "merged"
	}
	h := s.notesOf(id)
	for i := len(h) - 1; i >= 0; i-- {
		n := noteOf(h[i])
		if (n.Event() == "death" || n.Event() == "buried") && n.Cause() != "" {
			return n.Cause()
		}
	}
	for i := len(h) - 1; i >= 0; i-- {
		t := noteOf(h[i]).Text()
		switch {
		case strings.Contains(t, "executed"):
			return "executed"
		case strings.Contains(t, "starved"):
			return "starved"
		case strings.Contains(t, "forget"):
			return "forgotten"
		}
	}
	return "unknown"
}

// Obituary describes one entry's life (darwin-memo why / obituary).
func (s *Store) Obituary(id string) string {
	e, living := s.byID[id]
	if !living {
		e, _ = s.Dead(id)
	}
	heir := s.heirs()[id]
	if e == nil {
		if heir != nil {
			return fmt.Sprintf("%s: merged into %s (%s)", id, heir.ID, pyRepr(heir.Question))
		}
		return id + ": unknown to this store"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s [%s] %s\n", e.ID, e.Kind, pyRepr(e.Question))
	alive := "False"
	if living && e.Alive() {
		alive = "True"
	}
	fmt.Fprintf(&sb, "  energy=%.3f uses=%d alive=%s", e.Energy, e.Uses, alive)
	if e.Pinned {
		sb.WriteString(" pinned")
	}
	if e.Probation > 0 {
		fmt.Fprintf(&sb, " probation=%d", e.Probation)
	}
	sb.WriteByte('\n')
	if heir != nil {
		fmt.Fprintf(&sb, "  merged into %s\n", heir.ID)
	}
	h := s.notesOf(e.ID)
	for _, v := range h {
		sb.WriteString("  ")
		sb.WriteString(noteOf(v).Text())
		sb.WriteByte('\n')
	}
	if !living && len(h) == 0 && heir == nil {
		sb.WriteString("  no credited outcomes; it starved\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// pyRepr quotes s as Python's repr() of a str does (single quotes unless
// the text contains one and no double quote).
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var sb strings.Builder
	sb.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte(q)
	return sb.String()
}
